package dashboard

import (
	"strings"

	"github.com/taasky/taasky/app"
)

// deviceOf names the browser and its system as a User-Agent header says
// them, for a person to tell their sessions apart ("Firefox", "Linux"):
// a few tokens looked for in order, as app.js names a push device, "" for
// what it does not say. Only the name is kept, never the header.
func deviceOf(ua string) app.SessionDevice {
	return app.SessionDevice{Browser: firstIn(ua, browsers), Platform: firstIn(ua, platforms)}
}

type uaName struct{ token, name string }

// browsers: those whose User-Agent also names another first (Edge and
// Opera say Chrome, Chrome says Safari, Chromium says Chrome).
var browsers = []uaName{{"Edg/", "Edge"}, {"EdgA/", "Edge"}, {"OPR/", "Opera"}, {"SamsungBrowser/", "Samsung Internet"},
	{"Firefox/", "Firefox"}, {"FxiOS/", "Firefox"}, {"Chromium/", "Chromium"}, {"HeadlessChrome/", "Chromium"},
	{"CriOS/", "Chrome"}, {"Chrome/", "Chrome"}, {"Safari/", "Safari"}, {"curl/", "curl"}}

// platforms: Android says Linux, iOS says Mac OS X, Chrome OS says Linux
// on some versions.
var platforms = []uaName{{"Android", "Android"}, {"iPhone", "iOS"}, {"iPad", "iPadOS"}, {"CrOS", "ChromeOS"},
	{"Mac OS X", "macOS"}, {"Macintosh", "macOS"}, {"Windows", "Windows"}, {"Linux", "Linux"}}

func firstIn(ua string, names []uaName) string {
	for _, n := range names {
		if strings.Contains(ua, n.token) {
			return n.name
		}
	}
	return ""
}
