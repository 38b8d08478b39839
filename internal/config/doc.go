// Package config reads the process's configuration from the environment
// (DATABASE_URL, BASE_URL, SECRET_KEY, SMTP_*, OIDC_*, VAPID_*, the rate
// limits and the pace of rooms) for the role a command plays, checks every
// setting against its rule, and reports every problem at once, one line
// each, naming the variable and the rule. It derives the service's keys
// from SECRET_KEY (Config.Key) and keeps secrets out of logs.
//
// Only cmd/taasky (and tests that start the service as it does) uses it:
// the product packages take the values they need as plain arguments
// (app.RoomsConfig, dashboard.Config, …), never a Config, and must not
// import this package. It reads nothing but the getenv it is given (no
// os.Getenv, no files) and opens no connections: it checks the form of
// each value, never whether the database or the issuer answers.
package config
