package mrtr_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"

	"github.com/mrtrgen/mrtrgen/mrtr/store"
	"github.com/mrtrgen/mrtrgen/mrtr/store/storetest"
)

// The searches of TestSensitiveValuesAreNeverReadableAtRest: every store's
// whole content, each in its own way.

// searchMemory walks everything a memory store holds (its maps, records
// and their fields, by reflection) for marker.
func searchMemory(m *store.Memory, marker string) []string {
	var found []string
	seen := map[uintptr]bool{}
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() || seen[v.Pointer()] {
				return
			}
			seen[v.Pointer()] = true
			walk(v.Elem(), path)
		case reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem(), path)
			}
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i), path+"."+v.Type().Field(i).Name)
			}
		case reflect.Map:
			for it := v.MapRange(); it.Next(); {
				walk(it.Key(), path+"[key]")
				walk(it.Value(), path+"[value]")
			}
		case reflect.Slice, reflect.Array:
			if v.Type().Elem().Kind() == reflect.Uint8 && v.Kind() == reflect.Slice {
				if bytes.Contains(v.Bytes(), []byte(marker)) {
					found = append(found, "memory "+path)
				}
				return
			}
			for i := range v.Len() {
				walk(v.Index(i), path)
			}
		case reflect.String:
			if strings.Contains(v.String(), marker) {
				found = append(found, "memory "+path)
			}
		}
	}
	walk(reflect.ValueOf(m), "Memory")
	return found
}

// searchFiles searches the bytes of the files pattern matches (a SQLite
// database, its WAL and shared memory): what a copy of the disk shows.
func searchFiles(t *testing.T, marker, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no files %s (%v): the search is blind", pattern, err)
	}
	var found []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(marker)) {
			found = append(found, "the bytes of "+filepath.Base(f))
		}
	}
	return found
}

func searchSQLite(t *testing.T, path, marker string) []string {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tables, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for tables.Next() {
		var n string
		if err := tables.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	tables.Close()
	var found []string
	for _, n := range names {
		rows, err := db.Query(`SELECT * FROM "` + n + `"`)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				if containsMarker(v, marker) {
					found = append(found, "sqlite "+n+"."+cols[i])
				}
			}
		}
		rows.Close()
	}
	return found
}

func containsMarker(v any, marker string) bool {
	switch x := v.(type) {
	case []byte:
		return bytes.Contains(x, []byte(marker))
	case string:
		return strings.Contains(x, marker)
	}
	return false
}

// searchPostgres searches every row of every table of the store (those
// whose names start with prefix), each read as text: a text column as it
// is, a bytea column as the hex PostgreSQL writes it.
func searchPostgres(t *testing.T, prefix, marker string) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, storetest.PostgresURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT table_name FROM information_schema.tables
		WHERE table_schema = current_schema() AND left(table_name, length($1)) = $1`, prefix)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	if len(tables) < 2 {
		t.Fatalf("the store's tables %q: the search is blind", tables)
	}
	var found []string
	for _, table := range tables {
		var n int
		q := `SELECT count(*) FROM ` + pgx.Identifier{table}.Sanitize() + ` AS r WHERE strpos(r::text, $1) > 0 OR strpos(r::text, $2) > 0`
		if err := conn.QueryRow(ctx, q, marker, hex.EncodeToString([]byte(marker))).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			found = append(found, "postgres "+table)
		}
	}
	return found
}

func searchRedis(t *testing.T, prefix, marker string) []string {
	t.Helper()
	ctx := context.Background()
	opts, err := redis.ParseURL(storetest.RedisURL(t))
	if err != nil {
		t.Fatal(err)
	}
	c := redis.NewClient(opts)
	defer c.Close()
	var found []string
	iter := c.Scan(ctx, 0, prefix+"*", 100).Iterator()
	for iter.Next(ctx) {
		k := iter.Val()
		var vals []string
		switch typ := c.Type(ctx, k).Val(); typ {
		case "string":
			vals = []string{c.Get(ctx, k).Val()}
		case "hash":
			for f, v := range c.HGetAll(ctx, k).Val() {
				vals = append(vals, f, v)
			}
		case "set":
			vals = c.SMembers(ctx, k).Val()
		case "zset":
			vals = c.ZRange(ctx, k, 0, -1).Val()
		default:
			t.Fatalf("redis key %s of type %s: the search does not know it", k, typ)
		}
		for _, v := range append(vals, k) {
			if strings.Contains(v, marker) {
				found = append(found, "redis "+k)
				break
			}
		}
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	return found
}
