package form

import (
	"strconv"

	"github.com/taasky/taasky/app"
)

// The settings' notification forms.

// NotifyPrefs reads the notification choices: one checkbox per channel and
// kind (email_requests, email_notices, push_requests, push_notices); an
// unchecked box is not sent, and means off.
func NotifyPrefs(value func(key string, def ...string) string) app.NotifyPrefs {
	on := func(k string) bool { return value(k) != "" }
	return app.NotifyPrefs{EmailRequests: on("email_requests"), EmailNotices: on("email_notices"),
		PushRequests: on("push_requests"), PushNotices: on("push_notices")}
}

// PushSubscription reads a browser's push subscription as the settings
// script posts it (PushSubscription.toJSON's endpoint and keys, and a name
// for the device). The service checks it.
func PushSubscription(value func(key string, def ...string) string) app.PushSubscriptionInput {
	return app.PushSubscriptionInput{Endpoint: value("endpoint"), P256dh: value("p256dh"), Auth: value("auth"),
		Device: value("device")}
}

// DeviceID reads the id of one of the user's push devices: 0 when the form
// names none, ok false when it names one badly.
func DeviceID(value func(key string, def ...string) string) (id int64, ok bool) {
	s := value("id")
	if s == "" {
		return 0, true
	}
	id, err := strconv.ParseInt(s, 10, 64)
	return id, err == nil && id > 0
}
