package redact

import (
	"encoding/base64"
	"strings"
)

// prefixedRules are the kinds whose secrets start with a distinctive
// literal. Most are taken from gitleaks' default rule set
// (github.com/gitleaks/gitleaks, config/gitleaks.toml at b58d3f1, MIT
// licence, Copyright (c) 2019 Zachary Rice): its "prefixed" rules, whose
// keyword is the start of the secret itself, map onto this package's
// anchors one for one. Taken as data and rewritten: each anchor is the
// literal gitleaks names as the rule's keyword, each expression the
// token's shape from its regex, loosened to "at least" where gitleaks
// pins an exact length (a longer token of the same kind is still a
// secret). Left out: gitleaks' ~100 generic rules (a service's name
// within 50 bytes before a separator and a value: each would be a regexp
// run at every "=" or ":", and their values are the secret kind's job
// here), and the rules whose literal sits in the middle of the token
// (Azure AD client secrets "…Q~…", HashiCorp "….atlasv1.…", MaxMind
// "…_mmk"), which an anchor at the start cannot find. Not from gitleaks:
// Discord bot tokens, Twilio account SIDs, Azure storage connection
// strings, Docker Hub, Groq and Google OAuth, "Authorization: Basic",
// "curl -u" and "mysql -p".
var prefixedRules = []rule{
	// Services' keys, tokens and secrets, a rule each.
	tokenRule("google-api-key", `AIza[A-Za-z0-9_\-]{35,}`, "AIza"),
	tokenRule("google-oauth-secret", `GOCSPX-[A-Za-z0-9_\-]{24,}`, "GOCSPX-"),
	tokenRule("google-oauth-token", `ya29\.[A-Za-z0-9_\-]{30,}`, "ya29."),
	tokenRule("gitlab-token",
		`(?:glpat|gldt|glffct|glft|glimt|glrt|glsoat|glcbt|glagent|gloas|glptt)-[A-Za-z0-9_\-.]{20,}|GR1348941[A-Za-z0-9_\-]{20,}`,
		"glpat-", "gldt-", "glffct-", "glft-", "glimt-", "glrt-", "glsoat-", "glcbt-", "glagent-", "gloas-", "glptt-", "GR1348941"),
	tokenRule("npm-token", `npm_[A-Za-z0-9]{36,}`, "npm_"),
	lettersOnly(tokenRule("huggingface-token", `(?:hf_|api_org_)[A-Za-z]{34,}`, "hf_", "api_org_")),
	tokenRule("sendgrid-key", `SG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}`, "SG."),
	tokenRule("twilio-key", `(?:SK|AC)[0-9a-fA-F]{32}`, withHex("SK", "AC")...),
	discordRule(),
	tokenRule("pypi-token", `pypi-Ag[A-Za-z0-9_\-]{50,}`, "pypi-Ag"),
	tokenRule("vault-token", `hv[sbr]\.[A-Za-z0-9_\-]{24,}`, "hvs.", "hvb.", "hvr."),
	tokenRule("1password-token", `A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}|ops_eyJ[A-Za-z0-9+/]{100,}={0,3}`, "A3-", "ops_eyJ"),
	tokenRule("adobe-client-secret", `p8e-[A-Za-z0-9]{32}`, "p8e-"),
	tokenRule("age-secret-key", `AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`, "AGE-SECRET-KEY-1"),
	{
		kind: "airtable-token", anchors: []string{"pat"}, word: true, window: 128,
		pre: func(rest []byte, _ int) bool { return len(rest) > 17 && rest[17] == '.' },
		re:  lazyRegexp(`\Apat[A-Za-z0-9]{14}\.[a-f0-9]{64}`),
	},
	tokenRule("alibaba-access-key", `LTAI[A-Za-z0-9]{20}`, "LTAI"),
	tokenRule("artifactory-token", `AKCp[A-Za-z0-9]{69,}|cmVmd[A-Za-z0-9]{59,}`, "AKCp", "cmVmd"),
	tokenRule("atlassian-token", `ATATT3[A-Za-z0-9_\-=]{100,}`, "ATATT3"),
	tokenRule("aws-bedrock-key", `ABSK[A-Za-z0-9+/]{100,}={0,2}|bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=%]*`, "ABSK", "bedrock-api-key-"),
	tokenRule("clickhouse-key", `4b1d[A-Za-z0-9]{38}`, "4b1d"),
	tokenRule("clojars-token", `(?i:CLOJARS_)[A-Za-z0-9]{60,}`, "CLOJARS_"),
	tokenRule("cloudflare-origin-ca-key", `v1\.0-[a-f0-9]{24}-[a-f0-9]{146,}`, "v1.0-"),
	tokenRule("databricks-token", `dapi[a-f0-9]{32}(?:-\d)?`, "dapi"),
	tokenRule("digitalocean-token", `do[opr]_v1_[a-f0-9]{64}`, "doo_v1_", "dop_v1_", "dor_v1_"),
	tokenRule("docker-hub-token", `dckr_(?:pat|oat)_[A-Za-z0-9_\-]{20,}`, "dckr_pat_", "dckr_oat_"),
	tokenRule("doppler-token", `dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}`, "dp.pt.", "dp.st.", "dp.sa.", "dp.ct.", "dp.scim.", "dp.audit."),
	tokenRule("duffel-token", `duffel_(?:test|live)_[A-Za-z0-9_\-=]{43,}`, "duffel_test_", "duffel_live_"),
	tokenRule("dynatrace-token", `dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}`, "dt0c01."),
	tokenRule("easypost-key", `EZ[AT]K[A-Za-z0-9]{54,}`, "EZAK", "EZTK"),
	tokenRule("facebook-token", `EAA[MC][A-Za-z0-9]{100,}`, "EAAM", "EAAC"),
	tokenRule("flutterwave-key", `FLW(?:SECK|PUBK)(?:_TEST)?-[A-Za-z0-9]{12,}(?:-X)?`, "FLWSECK", "FLWPUBK"),
	tokenRule("flyio-token", `fo1_[A-Za-z0-9_\-]{43,}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3}`, "fo1_", "fm1a_", "fm1r_", "fm2_"),
	tokenRule("frameio-token", `fio-u-[A-Za-z0-9_\-=]{64,}`, "fio-u-"),
	tokenRule("grafana-token", `eyJrIjoi[A-Za-z0-9]{70,}={0,3}|glc_[A-Za-z0-9+/]{32,}={0,3}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}`, "eyJrIjoi", "glc_", "glsa_"),
	tokenRule("groq-key", `gsk_[A-Za-z0-9]{48,}`, "gsk_"),
	{
		kind: "harness-key", anchors: []string{"pat.", "sat."}, word: true, window: 128,
		re: lazyRegexp(`\A[ps]at\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}`),
	},
	tokenRule("heroku-key", `HRKU-AA[A-Za-z0-9_\-]{58,}`, "HRKU-AA"),
	tokenRule("infracost-token", `ico-[A-Za-z0-9]{32}`, "ico-"),
	tokenRule("intra42-secret", `s-s4t2(?:ud|af)-[a-f0-9]{64}`, "s-s4t2"),
	tokenRule("linear-key", `lin_api_[A-Za-z0-9]{40,}`, "lin_api_"),
	{
		kind: "teams-webhook", anchors: []string{"webhook.office.com/webhookb2/"}, window: 512,
		re: lazyRegexp(`\Awebhook\.office\.com/webhookb2/[A-Za-z0-9@/\-]{40,}`),
	},
	tokenRule("notion-token", `ntn_[0-9]{11}[A-Za-z0-9]{35,}`, "ntn_"),
	tokenRule("octopus-key", `API-[A-Z0-9]{26}`, "API-"),
	tokenRule("openshift-token", `sha256~[A-Za-z0-9_\-]{43,}`, "sha256~"),
	tokenRule("perplexity-key", `pplx-[A-Za-z0-9]{48,}`, "pplx-"),
	tokenRule("planetscale-token", `pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.\-]{32,}`, "pscale_tkn_", "pscale_oauth_", "pscale_pw_"),
	tokenRule("postman-key", `PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}`, "PMAK-"),
	tokenRule("prefect-token", `pnu_[A-Za-z0-9]{36,}`, "pnu_"),
	tokenRule("pulumi-token", `pul-[a-f0-9]{40}`, "pul-"),
	tokenRule("readme-token", `rdme_[a-z0-9]{70,}`, "rdme_"),
	tokenRule("rubygems-token", `rubygems_[a-f0-9]{48,}`, "rubygems_"),
	tokenRule("scalingo-token", `tk-us-[A-Za-z0-9_\-]{48,}`, "tk-us-"),
	tokenRule("sendinblue-key", `xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16,}`, "xkeysib-"),
	tokenRule("sentry-token", `sntrys_eyJ[A-Za-z0-9+/=_]{40,}|sntryu_[a-f0-9]{64}`, "sntrys_eyJ", "sntryu_"),
	tokenRule("settlemint-token", `sm_(?:aat|pat|sat)_[A-Za-z0-9]{16,}`, "sm_aat_", "sm_pat_", "sm_sat_"),
	tokenRule("shippo-token", `shippo_(?:live|test)_[a-fA-F0-9]{40,}`, "shippo_live_", "shippo_test_"),
	tokenRule("shopify-token", `shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32,}`, "shpat_", "shpca_", "shppa_", "shpss_"),
	tokenRule("sourcegraph-token", `sgp_(?:[a-fA-F0-9]{16}|local)_[a-fA-F0-9]{40}|sgp_[a-fA-F0-9]{40}`, "sgp_"),
	tokenRule("square-token", `(?:EAAA|sq0atp-|sq0csp-)[A-Za-z0-9_\-]{22,}`, "EAAA", "sq0atp-", "sq0csp-"),
	{
		// The value of AccountKey= in an Azure storage connection string
		// (and SharedAccessKey= in a Service Bus one): base64 of a key.
		kind: "azure-storage-key", anchors: []string{"AccountKey=", "SharedAccessKey="}, fold: true, window: 256,
		re:    lazyRegexp(`\A(?i:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{20,}={0,2})`),
		group: 1,
	},
	{
		// "Authorization: Basic <base64 of user:password>"; the value
		// must decode to something with a colon ("Basic authentication"
		// is prose).
		kind: "basic-auth", anchors: []string{"basic "}, fold: true, word: true, window: 2 << 10,
		re:    lazyRegexp(`\A(?i:basic) +([A-Za-z0-9+/]{8,}={0,2})`),
		group: 1, keep: func(_, v []byte) bool { return !basicCredentials(v) },
	},
	{
		// curl -u user:password, --user user:password; the password
		// goes, the user stays.
		kind: "curl-password", anchors: []string{"-u ", "--user"}, word: true, window: 512,
		re:     lazyRegexp(userPassword(`(?:\\["']|')?`)),
		textRe: lazyRegexp(userPassword(`["']?`)),
		group:  1, keep: func(_, v []byte) bool { return placeholder(v) || allDigits(v) },
	},
	{
		// mysql -psecret (the password is glued to -p).
		kind: "mysql-password", anchors: []string{"mysql"}, word: true, window: 512,
		re:     lazyRegexp(mysqlPassword(`(?:\\["']|')?`)),
		textRe: lazyRegexp(mysqlPassword(`["']?`)),
		group:  1, keep: func(_, v []byte) bool { return placeholder(v) },
	},
}

// tokenRule is a kind whose secret is the token pattern matches at one
// of anchors, standing alone: not the tail of a longer word, not the head
// of one (a hash that only starts like a key is kept), and not inside
// base64 ("Dx+EAAAAAAAA…" is machine code in a base64 file, not a Square
// token). It must mix letters and digits, as generated tokens
// do (all but Hugging Face's, letters only).
func tokenRule(kind, pattern string, anchors ...string) rule {
	return rule{
		kind: kind, anchors: anchors, word: true, notBase64: true, window: 2 << 10,
		re:    lazyRegexp(`\A(` + pattern + `)(?:[^A-Za-z0-9_\-+/]|\z)`),
		group: 1, keep: keepUnlessRandom,
	}
}

// lettersOnly is r for a kind whose tokens are letters alone.
func lettersOnly(r rule) rule {
	r.keep = nil
	return r
}

// keepUnlessRandom keeps a token that does not mix letters and digits
// ("EAAAAAAAAAAAAAAAAAAAAAAAAAAA").
func keepUnlessRandom(_, v []byte) bool { return !looksRandom(v) }

// withHex is each prefix followed by each hexadecimal digit: anchors need
// three bytes, and a two-letter prefix alone would be tried at every "ac"
// of the prose.
func withHex(prefixes ...string) []string {
	var out []string
	for _, p := range prefixes {
		for _, c := range "0123456789abcdefABCDEF" {
			out = append(out, p+string(c))
		}
	}
	return out
}

// discordRule matches a Discord bot token: the base64 of the bot's
// numeric ID, a dot, six characters, a dot, the HMAC. An ID is 17 to 19
// digits, so its base64 starts with one of nine pairs ("MT" for an ID
// starting with 1) and a third character fixed by the second digit.
func discordRule() rule {
	var anchors []string
	for _, pair := range []string{"MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT"} {
		for _, c := range "AEIMQUYcgk" {
			anchors = append(anchors, pair+string(c))
		}
	}
	return rule{
		kind: "discord-token", anchors: anchors, word: true, window: 256,
		re: lazyRegexp(`\A[MNO][A-Za-z0-9]{23,25}\.[A-Za-z0-9_\-]{6}\.[A-Za-z0-9_\-]{27,40}`),
	}
}

// userPassword is the expression of curl's -u user:password, quote being
// what may surround the value.
func userPassword(quote string) string {
	return `\A(?:-u|--user)(?:=|[ \t]+)` + quote + "[^\\s\"'`\\\\:@]*:([^\\s\"'`\\\\]{3,})"
}

// mysqlPassword is the expression of a mysql command line with its
// password glued to -p.
func mysqlPassword(quote string) string {
	return `\Amysql(?:dump|admin|sh|import|check)?(?:[ \t]+[^\s"\\]+)*?[ \t]+-p` + quote + "([^\\s\"'`\\\\-][^\\s\"'`\\\\]{2,})"
}

// basicCredentials reports whether v, the value of "Basic", is base64 of
// user:password.
func basicCredentials(v []byte) bool {
	s := strings.TrimRight(string(v), "=")
	b, err := base64.RawStdEncoding.DecodeString(s)
	return err == nil && strings.IndexByte(string(b), ':') >= 0
}

func allDigits(v []byte) bool {
	for _, c := range v {
		if (c < '0' || c > '9') && c != ':' {
			return false
		}
	}
	return true
}
