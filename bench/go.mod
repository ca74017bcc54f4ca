module github.com/mrtrgen/mrtrgen/bench

go 1.26.0

require (
	github.com/golang-jwt/jwt/v5 v5.3.1
	github.com/mrtrgen/mrtrgen v0.0.0
	google.golang.org/protobuf v1.36.12
)

replace github.com/mrtrgen/mrtrgen => ../
