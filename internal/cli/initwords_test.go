package cli

import "testing"

func TestStarterWords(t *testing.T) {
	for _, c := range []struct{ verb, past, verbs, able string }{
		{"delete", "deleted", "deletes", "deletable"},
		{"close", "closed", "closes", "closable"},
		{"stop", "stopped", "stops", "stoppable"},
		{"copy", "copied", "copies", "copiable"},
		{"refund", "refunded", "refunds", "refundable"},
		{"approve", "approved", "approves", "approvable"},
		{"open", "opened", "opens", "openable"},
		{"push", "pushed", "pushes", "pushable"},
		{"send", "sent", "sends", "sendable"},
		{"submit", "submitted", "submits", "submitable"},
		{"play", "played", "plays", "playable"},
		{"fix", "fixed", "fixes", "fixable"},
		{"free", "freed", "frees", "freeable"},
	} {
		if got := pastTense(c.verb); got != c.past {
			t.Errorf("pastTense(%q) = %q, want %q", c.verb, got, c.past)
		}
		if got := thirdPerson(c.verb); got != c.verbs {
			t.Errorf("thirdPerson(%q) = %q, want %q", c.verb, got, c.verbs)
		}
		if got := ableForm(c.verb); got != c.able {
			t.Errorf("ableForm(%q) = %q, want %q", c.verb, got, c.able)
		}
	}
	w := wordsOf("archive_user_account")
	if w.Object != "user account" || w.IDArg != "userAccountId" || w.Effect != "archiveUserAccount" ||
		w.Find != "findUserAccount" || w.Confirm != "confirmArchive" || w.Article != "a" {
		t.Errorf("wordsOf(archive_user_account) = %+v", w)
	}
	if w := wordsOf("delete_order"); w.Article != "an" || article("update") != "an" || article("unit") != "a" {
		t.Errorf("article of order: %q", w.Article)
	}
	for tool, want := range map[string]bool{
		"close_ticket": true, "delete_document": true, "billing": false, "v2_thing": false, "close_2x": false,
	} {
		if got := isVerbObject(tool); got != want {
			t.Errorf("isVerbObject(%q) = %v, want %v", tool, got, want)
		}
	}
}
