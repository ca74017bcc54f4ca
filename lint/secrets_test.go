package lint

import (
	"slices"
	"testing"
)

func TestNameWords(t *testing.T) {
	for name, want := range map[string][]string{
		"apiKey":         {"api", "key"},
		"APIKey":         {"api", "key"},
		"api_key":        {"api", "key"},
		"x-api-key":      {"x", "api", "key"},
		"paymentToken":   {"payment", "token"},
		"HTTPServer2FA":  {"http", "server", "2", "fa"},
		"oauth2Token":    {"oauth", "2", "token"},
		"PIN":            {"pin"},
		"tokenExpiresAt": {"token", "expires", "at"},
	} {
		if got := nameWords(name); !slices.Equal(got, want) {
			t.Errorf("nameWords(%q) = %q, want %q", name, got, want)
		}
	}
}

// Names of secrets are found by words, not substrings; names of facts about
// a secret (its count, its expiry, its name) are not secrets.
func TestSecretName(t *testing.T) {
	secret := []string{
		"token", "accessToken", "refresh_token", "paymentToken", "bearerToken", "sessionToken", "oauth2Token",
		"password", "userPassword", "db_password", "passwd", "pwd", "passphrase", "passcode",
		"secret", "clientSecret", "client_secret", "webhookSecret", "secretValue",
		"apiKey", "APIKey", "api_key", "apikey", "stripeApiKey", "privateKey", "private_key", "signingKey",
		"credential", "credentials", "awsCredentials",
		"otp", "otpCode", "totp", "pin", "PIN", "cardPin", "pinCode", "cvv", "cvc",
		"sessionCookie", "tokens",
	}
	notSecret := []string{
		"tokenCount", "maxTokens", "numTokens", "tokenExpiry", "tokenExpiresAt", "tokenType",
		"passwordHint", "passwordChangedAt", "pwdPolicy", "secretName", "secretArn", "apiKeyId",
		"pinLength", "pinned", "spinner", "opinion", "option", "otpSentAt", "keyboard", "publicKey",
		"monkey", "turkey", "happiness", "pinyin", "compassion", "tokenizer", "subject", "customerId",
		"key", "apiVersion", "keyId",
	}
	for _, n := range secret {
		if secretName(n) == "" {
			t.Errorf("%q is not taken for a secret", n)
		}
	}
	for _, n := range notSecret {
		if w := secretName(n); w != "" {
			t.Errorf("%q is taken for a secret (%s)", n, w)
		}
	}
}
