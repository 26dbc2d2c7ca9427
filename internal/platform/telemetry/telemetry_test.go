package telemetry

import "testing"

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// Export is on only when the environment says where (or asks for OTLP), and never when the SDK
// is disabled or the exporter is "none".
func TestEnabled(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want bool
	}{
		{nil, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/v1/traces"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, false},
		{map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, false},
		{map[string]string{"OTEL_SERVICE_NAME": "x"}, false},
	} {
		if got := Enabled(env(c.env)); got != c.want {
			t.Errorf("Enabled(%v) = %v", c.env, got)
		}
	}
	if CaptureContent(env(nil)) || !CaptureContent(env(map[string]string{CaptureContentEnv: "TRUE"})) {
		t.Error("content capture is off unless set to true")
	}
}
