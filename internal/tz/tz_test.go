package tz

import "testing"

func TestLoad(t *testing.T) {
	for _, name := range []string{"UTC", "Europe/Paris", "America/Argentina/Buenos_Aires", "Asia/Calcutta", "Etc/GMT+5"} {
		if loc, err := Load(name); err != nil || loc.String() != name {
			t.Errorf("%s: %v %v", name, loc, err)
		}
	}
	for _, name := range []string{"", "Local", "localtime", "posixrules", "Factory", "EST5EDT", "Europe", "Europe/Nowhere",
		"Europe/../localtime", "/etc/localtime", "europe/paris", "Mars/Olympus", "Europe/./Paris", "Europe//Paris", "Etc/./UTC"} {
		if _, err := Load(name); err == nil {
			t.Errorf("%q loaded", name)
		}
	}
}
