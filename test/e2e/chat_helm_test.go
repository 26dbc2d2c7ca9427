package e2e

import (
	"encoding/base64"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// container returns the first container of a rendered Deployment and its pod spec.
func container(t *testing.T, objs map[string]map[string]any, deployment string) (ctr, pod map[string]any) {
	t.Helper()
	d, ok := objs[deployment]
	if !ok {
		t.Fatalf("no %s in %v", deployment, keys(objs))
	}
	pod = d["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	return pod["containers"].([]any)[0].(map[string]any), pod
}

// path reads a nested field of a decoded object ("a.b.0.c"), nil when missing.
func path(v any, p string) any {
	for _, k := range strings.Split(p, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			i := 0
			for _, c := range k {
				i = i*10 + int(c-'0')
			}
			if i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// fields checks fields of a decoded object (paths as path reads them) against wanted values.
func fields(t *testing.T, what string, obj any, want map[string]any) {
	t.Helper()
	for field, w := range want {
		if got := path(obj, field); got != w {
			t.Errorf("%s %s = %v, want %v", what, field, got, w)
		}
	}
}

// hasAll checks that s holds each of wants.
func hasAll(t *testing.T, what, s string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(s, want) {
			t.Errorf("%s lack %q: %s", what, want, s)
		}
	}
}

// named indexes a decoded list (volumes, mounts) by its items' names.
func named(list any) map[string]any {
	out := map[string]any{}
	for _, v := range list.([]any) {
		out[path(v, "name").(string)] = v
	}
	return out
}

// template renders the chart as release agentry in agentry-system with the given flags.
func template(t *testing.T, flags ...string) map[string]map[string]any {
	t.Helper()
	return docs(t, helm(t, append([]string{"template", "agentry", chart, "-n", "agentry-system"}, flags...)...))
}

const chatDeployment = "Deployment/agentry-chat@agentry-system"

func argList(ctr map[string]any) []string {
	var out []string
	for _, a := range ctr["args"].([]any) {
		out = append(out, a.(string))
	}
	return out
}

// helmFails runs helm expecting an error and returns its output.
func helmFails(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(helmBin, args...)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Errorf("helm %s must fail:\n%s", strings.Join(args, " "), out)
	}
	return string(out)
}

// TestChatChartTemplate renders chat.enabled and checks the objects, their security settings,
// probes and args, that no credential leaves its Secret, and what the chart refuses.
func TestChatChartTemplate(t *testing.T) {
	for _, f := range []string{"chat.yaml", "chat-postgres.yaml"} {
		helm(t, "lint", "--strict", chart, "-f", "test/e2e/values/"+f)
	}
	helm(t, "lint", "--strict", chart, "--set", "chat.enabled=true")

	// Off by default: nothing of the chat service.
	for k := range template(t) {
		if strings.Contains(k, "chat") {
			t.Errorf("chat is off by default, but %s is rendered", k)
		}
	}
	objs := template(t, "-f", "test/e2e/values/chat.yaml")
	t.Run("objects", func(t *testing.T) { chatObjects(t, objs) })
	t.Run("pod", func(t *testing.T) { chatPod(t, objs) })
	t.Run("services and ingress", func(t *testing.T) { chatServices(t, objs) })
	t.Run("credentials", func(t *testing.T) { chatCredentials(t, objs) })
	t.Run("postgres", chatPostgres)
	t.Run("refused values", chatRefusals)
	t.Run("strategy", chatStrategy)
	t.Run("persistence and metrics off", chatOff)
	t.Run("oidc", chatOIDC)
}

// chatOIDC: sign-in through a provider renders as flags, with the client secret mounted from its
// Secret as a file (only its key), never in args or env values.
func chatOIDC(t *testing.T) {
	objs := template(t, "--set", "chat.enabled=true,chat.oidc.issuer=https://idp.example.com/realms/acme,chat.oidc.clientId=agentry-chat,"+
		"chat.oidc.existingSecret=chat-oidc,chat.oidc.redirectURL=https://chat.example.com/chat/v1/auth/sso/callback,chat.oidc.providerName=Acme,"+
		"chat.oidc.groupsClaim=groups,chat.oidc.adminGroups={chat-admins},chat.oidc.requiredGroups={eng,ops},chat.oidc.sessionTTL=8h,chat.oidc.sessionIdleTimeout=30m")
	ctr, pod := container(t, objs, chatDeployment)
	a := strings.Join(argList(ctr), " ")
	hasAll(t, "chat args", a, "--oidc-issuer=https://idp.example.com/realms/acme", "--oidc-client-id=agentry-chat",
		"--oidc-client-secret-file=/etc/agentry-chat/oidc/clientSecret", "--oidc-redirect-url=https://chat.example.com/chat/v1/auth/sso/callback",
		"--oidc-provider-name=Acme", "--oidc-scopes=email,profile", "--oidc-groups-claim=groups", "--oidc-admin-groups=chat-admins",
		"--oidc-required-groups=eng,ops", "--session-ttl=8h", "--session-idle-timeout=30m")
	vol := named(pod["volumes"])["oidc"]
	fields(t, "oidc volume", vol, map[string]any{"secret.secretName": "chat-oidc", "secret.items.0.key": "clientSecret", "secret.items.1": nil})
	if c, _ := container(t, template(t, "--set", "chat.enabled=true"), chatDeployment); strings.Contains(strings.Join(argList(c), " "), "--oidc") {
		t.Error("oidc flags without chat.oidc.issuer")
	}
}

func chatObjects(t *testing.T, objs map[string]map[string]any) {
	rendered(t, "chat.enabled", objs, true, chatDeployment, "Service/agentry-chat@agentry-system", "Service/agentry-chat-metrics@agentry-system", "Ingress/agentry-chat@agentry-system",
		"Secret/agentry-chat-credentials@agentry-system", "PersistentVolumeClaim/agentry-chat-data@agentry-system", "ServiceAccount/agentry-chat@agentry-system",
		"ClusterRole/agentry-chat-agent-reader", "ClusterRoleBinding/agentry-chat-agent-reader",
		// The operator is still there.
		"Deployment/agentry-operator@agentry-system")
	sameRules(t, objs["ClusterRole/agentry-chat-agent-reader"], "config/rbac/chat_agent_reader_role.yaml")
	if s := path(objs["ClusterRoleBinding/agentry-chat-agent-reader"], "subjects.0"); path(s, "name") != "agentry-chat" || path(s, "namespace") != "agentry-system" {
		t.Errorf("the agent reader is bound to %v, want the chat ServiceAccount", s)
	}
	// Its own tokens for in-cluster Agents (auth service-account): create on its own
	// ServiceAccount's token, nothing more.
	rendered(t, "chat.enabled", objs, true, "Role/agentry-chat-token-requester@agentry-system", "RoleBinding/agentry-chat-token-requester@agentry-system")
	fields(t, "token requester", objs["Role/agentry-chat-token-requester@agentry-system"], map[string]any{
		"rules.0.apiGroups.0": "", "rules.0.resources.0": "serviceaccounts/token", "rules.0.resources.1": nil,
		"rules.0.resourceNames.0": "agentry-chat", "rules.0.resourceNames.1": nil, "rules.0.verbs.0": "create", "rules.0.verbs.1": nil, "rules.1": nil})
	fields(t, "token requester binding", objs["RoleBinding/agentry-chat-token-requester@agentry-system"], map[string]any{
		"subjects.0.name": "agentry-chat", "subjects.0.namespace": "agentry-system", "roleRef.name": "agentry-chat-token-requester"})
	ctr, _ := container(t, objs, chatDeployment)
	hasAll(t, "chat args", strings.Join(argList(ctr), " "), "--service-account=agentry-system/agentry-chat")
	pvc := objs["PersistentVolumeClaim/agentry-chat-data@agentry-system"]
	if ann, _ := path(pvc, "metadata.annotations").(map[string]any); path(pvc, "spec.resources.requests.storage") != "1Gi" || path(pvc, "spec.accessModes.0") != "ReadWriteOnce" || ann["helm.sh/resource-policy"] != "keep" {
		t.Errorf("data claim: %v", pvc)
	}
}

func chatPod(t *testing.T, objs map[string]map[string]any) {
	ctr, pod := container(t, objs, chatDeployment)
	if ctr["image"] != "ghcr.io/agentry-dev/agentry:0.1.0" {
		t.Errorf("chat image %v, want the operator's image", ctr["image"])
	}
	a := strings.Join(argList(ctr), " ")
	hasAll(t, "chat args", a, "chat --addr :8080 --metrics-addr :9090 --replicas 1 ", "--storage file:/var/lib/agentry-chat/chat.db",
		"--media-dir /var/lib/agentry-chat/media", "--api-key-file /etc/agentry-chat/credentials/apiKey",
		"--headers-key-file /etc/agentry-chat/credentials/headersKey", "--agent-refs=true", "--cors-origins=https://app.example.com", "--log-format=json",
		"--max-conns-per-ip=0")
	if strings.Contains(a, "--agent-namespaces") || strings.Contains(a, "--auth-key") || strings.Contains(a, "--allow-http-agents") {
		t.Errorf("chat args: %s", a)
	}
	if path(objs[chatDeployment], "spec.strategy.type") != "Recreate" {
		t.Error("SQLite on a ReadWriteOnce claim: the old pod must stop before the new one starts (strategy Recreate)")
	}
	fields(t, "chat pod", pod, map[string]any{"securityContext.runAsNonRoot": true, "securityContext.seccompProfile.type": "RuntimeDefault", "securityContext.fsGroup": float64(65532),
		"serviceAccountName": "agentry-chat", "automountServiceAccountToken": true})
	fields(t, "chat container", ctr, map[string]any{"securityContext.readOnlyRootFilesystem": true, "securityContext.allowPrivilegeEscalation": false,
		"securityContext.capabilities.drop.0": "ALL",
		// Liveness never checks the database (an outage would restart every replica at once);
		// readiness pings the store. Both on the metrics listener.
		"livenessProbe.httpGet.path": "/healthz", "livenessProbe.httpGet.port": "metrics", "livenessProbe.tcpSocket": nil,
		"readinessProbe.httpGet.path": "/readyz", "readinessProbe.httpGet.port": "metrics",
		"ports.0.name": "http", "ports.0.containerPort": float64(8080), "ports.1.name": "metrics", "ports.1.containerPort": float64(9090),
		"resources.requests.memory": "64Mi", "resources.limits.memory": "512Mi"})
	mounts := map[string]string{}
	for _, m := range ctr["volumeMounts"].([]any) {
		mounts[path(m, "name").(string)] = path(m, "mountPath").(string)
	}
	vols := named(pod["volumes"])
	if mounts["data"] != "/var/lib/agentry-chat" || path(vols["data"], "persistentVolumeClaim.claimName") != "agentry-chat-data" {
		t.Errorf("data volume: %v %v", mounts, vols["data"])
	}
	if mounts["credentials"] != "/etc/agentry-chat/credentials" || path(vols["credentials"], "secret.secretName") != "agentry-chat-credentials" {
		t.Errorf("credentials volume: %v %v", mounts, vols["credentials"])
	}
	if path(vols["tmp"], "emptyDir") == nil || mounts["tmp"] != "/tmp" {
		t.Errorf("a read-only root needs a writable /tmp: %v", vols["tmp"])
	}
}

// chatServices: the public Service has http only, the metrics port a ClusterIP Service of its own.
func chatServices(t *testing.T, objs map[string]map[string]any) {
	svc := objs["Service/agentry-chat@agentry-system"]
	fields(t, "chat Service", svc, map[string]any{"spec.type": "ClusterIP", "spec.ports.0.name": "http", "spec.ports.0.port": float64(80), "spec.ports.0.targetPort": "http",
		"spec.ports.1": nil})
	if sel := path(svc, "spec.selector").(map[string]any); sel["app.kubernetes.io/component"] != "chat" {
		t.Errorf("the chat Service selects %v", sel)
	}
	msvc := objs["Service/agentry-chat-metrics@agentry-system"]
	fields(t, "chat metrics Service", msvc, map[string]any{"spec.type": "ClusterIP", "spec.ports.0.name": "metrics", "spec.ports.0.port": float64(9090), "spec.ports.0.targetPort": "metrics",
		"spec.ports.1": nil})
	if sel, _ := path(msvc, "spec.selector").(map[string]any); sel["app.kubernetes.io/component"] != "chat" || sel["app.kubernetes.io/instance"] != "agentry" {
		t.Errorf("the chat metrics Service selects %v", sel)
	}
	// A public Service type does not publish the metrics port; the metrics Service stays
	// ClusterIP; the http Service port may equal the metrics port (different Services).
	lb := template(t, "--set", "chat.enabled=true,chat.service.type=LoadBalancer,chat.service.port=9090")
	for k, want := range map[string]string{"Service/agentry-chat@agentry-system": "LoadBalancer", "Service/agentry-chat-metrics@agentry-system": "ClusterIP"} {
		if got := path(lb[k], "spec.type"); got != want {
			t.Errorf("%s type %v, want %s", k, got, want)
		}
	}
	if ports := path(lb["Service/agentry-chat@agentry-system"], "spec.ports").([]any); len(ports) != 1 || path(ports[0], "name") != "http" || path(ports[0], "port") != float64(9090) {
		t.Errorf("a LoadBalancer chat Service must have the http port only: %v", ports)
	}
	fields(t, "chat Ingress", objs["Ingress/agentry-chat@agentry-system"], map[string]any{"spec.ingressClassName": "nginx", "spec.tls.0.secretName": "chat-tls", "spec.tls.0.hosts.0": "chat.example.com",
		"spec.rules.0.host": "chat.example.com", "spec.rules.0.http.paths.0.path": "/", "spec.rules.0.http.paths.0.pathType": "Prefix",
		"spec.rules.0.http.paths.0.backend.service.name": "agentry-chat", "spec.rules.0.http.paths.0.backend.service.port.name": "http"})
}

// chatCredentials: the generated credentials live in the Secret only: not in args, env values,
// ConfigMaps, annotations or any other object, in clear or base64.
func chatCredentials(t *testing.T, objs map[string]map[string]any) {
	sec := objs["Secret/agentry-chat-credentials@agentry-system"]
	if ann, _ := path(sec, "metadata.annotations").(map[string]any); ann["helm.sh/resource-policy"] != "keep" {
		t.Errorf("the credentials Secret must be kept on uninstall: %v", path(sec, "metadata.annotations"))
	}
	var secrets []string
	for _, k := range []string{"apiKey", "headersKey"} {
		enc, _ := path(sec, "data."+k).(string)
		raw, err := base64.StdEncoding.DecodeString(enc)
		if err != nil || len(raw) == 0 {
			t.Fatalf("credentials %s: %q %v", k, enc, err)
		}
		secrets = append(secrets, string(raw), enc)
	}
	apiKey, _ := base64.StdEncoding.DecodeString(path(sec, "data.apiKey").(string))
	if len(apiKey) < 32 || !regexp.MustCompile(`^[A-Za-z0-9]+$`).Match(apiKey) {
		t.Errorf("generated API key %q", apiKey)
	}
	hk, _ := base64.StdEncoding.DecodeString(path(sec, "data.headersKey").(string))
	if b, err := hex.DecodeString(string(hk)); err != nil || len(b) != 32 {
		t.Errorf("the headers key must be 32 bytes as 64 hex digits: %q", hk)
	}
	for k, obj := range objs {
		if k == "Secret/agentry-chat-credentials@agentry-system" {
			continue
		}
		text, _ := yaml.Marshal(obj)
		for _, s := range secrets {
			if strings.Contains(string(text), s) {
				t.Errorf("a chat credential leaks into %s", k)
			}
		}
		if strings.HasPrefix(k, "ConfigMap/") {
			t.Errorf("the chart renders no ConfigMap, found %s", k)
		}
	}
	// helm template cannot look the Secret up: a new value each time (helm upgrade keeps it).
	again := template(t, "-f", "test/e2e/values/chat.yaml")
	if path(again["Secret/agentry-chat-credentials@agentry-system"], "data.apiKey") == path(sec, "data.apiKey") {
		t.Error("the API key must be random")
	}
}

// chatPostgres: two replicas on PostgreSQL: the URL from the Secret, no claim the chart creates,
// media on the shared claim, the user's credentials, namespace-scoped agent reader Roles.
func chatPostgres(t *testing.T) {
	pg := template(t, "-f", "test/e2e/values/chat-postgres.yaml")
	ctr, pod := container(t, pg, chatDeployment)
	a := strings.Join(argList(ctr), " ")
	hasAll(t, "postgres args", a, "--replicas 2 ", "--agent-namespaces=team-a,team-b")
	if strings.Contains(a, "--storage") || strings.Contains(a, "postgres") {
		t.Errorf("the PostgreSQL URL must come from the Secret, not args: %s", a)
	}
	// No data claim (two replicas): RollingUpdate (the default, no strategy rendered).
	if path(pg[chatDeployment], "spec.replicas") != float64(2) || path(pg[chatDeployment], "spec.strategy") != nil {
		t.Errorf("postgres Deployment spec: %v", pg[chatDeployment]["spec"])
	}
	if e := path(ctr, "env.0"); path(e, "name") != "AGENTRY_CHAT_STORAGE" || path(e, "valueFrom.secretKeyRef.name") != "chat-postgres" || path(e, "valueFrom.secretKeyRef.key") != "url" || path(e, "value") != nil {
		t.Errorf("AGENTRY_CHAT_STORAGE must come from the Secret: %v", e)
	}
	rendered(t, "postgres with 2 replicas and own credentials", pg, false,
		"PersistentVolumeClaim/agentry-chat-data@agentry-system", "Secret/agentry-chat-credentials@agentry-system", "ClusterRole/agentry-chat-agent-reader")
	rendered(t, "namespaced chat", pg, true, "Role/agentry-chat-agent-reader@team-a", "Role/agentry-chat-agent-reader@team-b")
	for _, n := range []string{"team-a", "team-b"} {
		if s := path(pg["RoleBinding/agentry-chat-agent-reader@"+n], "subjects.0.name"); s != "agentry-chat" {
			t.Errorf("namespaced chat RoleBinding in %s binds %v", n, s)
		}
	}
	vols := named(pod["volumes"])
	if path(vols["media"], "persistentVolumeClaim.claimName") != "chat-media" || path(vols["data"], "emptyDir") == nil ||
		path(vols["credentials"], "secret.secretName") != "my-chat-credentials" {
		t.Errorf("postgres volumes: %v", vols)
	}
}

// chatRefusals: more than one replica needs PostgreSQL: the schema says so, and the template
// too when the schema is skipped; PostgreSQL needs the Secret with its URL.
func chatRefusals(t *testing.T) {
	for set, want := range map[string][]string{
		"chat.enabled=true,chat.replicas=2":            {"/chat/storage/type", "SQLite allows one replica only"},
		"chat.enabled=true,chat.storage.type=postgres": {"/chat/storage/existingSecret", "chat.storage.existingSecret is empty"},
		// The container's http port is 8080, and the non-root pod cannot bind below 1024.
		"chat.enabled=true,chat.metrics.port=8080": {"/chat/metrics/port", "chat.metrics.port is 8080, the chat container's http port"},
		"chat.enabled=true,chat.metrics.port=80":   {"/chat/metrics/port", "cannot bind a port below 1024"},
		"chat.enabled=true,chat.metrics.port=1023": {"/chat/metrics/port", "chat.metrics.port 1023 is not in 1024-65535"},
		"chat.enabled=true,chat.oidc.issuer=https://idp.example.com,chat.oidc.clientId=agentry,chat.oidc.redirectURL=https://chat.example.com/chat/v1/auth/sso/callback": {
			"/chat/oidc/existingSecret", "chat.oidc.existingSecret (the Secret holding the client secret)"},
	} {
		if out := helmFails(t, "template", "agentry", chart, "--set", set); !strings.Contains(out, want[0]) {
			t.Errorf("--set %s: values.schema.json must refuse it at %s: %s", set, want[0], out)
		}
		if out := helmFails(t, "template", "agentry", chart, "--skip-schema-validation", "--set", set); !strings.Contains(out, want[1]) {
			t.Errorf("--set %s without the schema: the template must fail with %q: %s", set, want[1], out)
		}
	}
	for _, set := range []string{"chat.storage.type=mysql", "chat.replicas=0", "chat.metrics.port=65536", "chat.corsOrigins={https://a.example/x}", "chat.unknown=1"} {
		helmFails(t, "template", "agentry", chart, "--set", "chat.enabled=true,"+set)
	}
	helm(t, "template", "agentry", chart, "--set", "chat.enabled=true,chat.replicas=2,chat.storage.type=postgres,chat.storage.existingSecret=pg")
	if c, _ := container(t, template(t, "--set", "chat.enabled=true,chat.metrics.port=1024"), chatDeployment); path(c, "ports.1.containerPort") != float64(1024) {
		t.Errorf("chat.metrics.port=1024: %v", c["ports"])
	}
}

// chatStrategy: Recreate whenever the data volume is a claim (ReadWriteOnce: a RollingUpdate's
// new pod on another node would wait for it forever, Multi-Attach), the store is SQLite, or one
// replica mounts a media claim; RollingUpdate for PostgreSQL without a data claim.
func chatStrategy(t *testing.T) {
	const pgSet = "chat.storage.type=postgres,chat.storage.existingSecret=pg,"
	for set, want := range map[string]any{
		"chat.persistence.enabled=false":                                        "Recreate", // SQLite: one writer
		"chat.persistence.existingClaim=mine":                                   "Recreate",
		pgSet + "chat.persistence.enabled=true":                                 "Recreate", // the chart's claim
		pgSet + "chat.persistence.existingClaim=mine":                           "Recreate",
		pgSet + "chat.replicas=3,chat.persistence.existingClaim=shared":         "Recreate",
		pgSet + "chat.persistence.enabled=false":                                nil,
		pgSet + "chat.replicas=3,chat.media.existingClaim=media":                nil,
		pgSet + "chat.persistence.enabled=false,chat.media.existingClaim=media": "Recreate", // one replica: the claim may be ReadWriteOnce
	} {
		d := template(t, "--set", "chat.enabled=true,"+set)[chatDeployment]
		if got := path(d, "spec.strategy.type"); got != want {
			t.Errorf("--set %s: strategy %v, want %v", set, got, want)
		}
		if _, pod := container(t, map[string]map[string]any{"d": d}, "d"); want == nil && path(pod, "volumes.0.emptyDir") == nil {
			t.Errorf("--set %s: RollingUpdate with a data claim: %v", set, path(pod, "volumes.0"))
		}
	}
}

// chatOff: persistence off is an emptyDir; an existing claim is used as is. Metrics off: the flag
// is given empty (the binary's default would serve them), no metrics port or Service; liveness
// is a TCP check of the http port (still no database), readiness the public healthz.
func chatOff(t *testing.T) {
	off := template(t, "--set", "chat.enabled=true,chat.persistence.enabled=false,chat.metrics.enabled=false")
	offCtr, offPod := container(t, off, chatDeployment)
	if !strings.Contains(strings.Join(argList(offCtr), "|"), "|--metrics-addr||") || path(offCtr, "ports.1") != nil {
		t.Errorf("metrics off: %v %v", offCtr["args"], offCtr["ports"])
	}
	fields(t, "metrics off: chat container", offCtr, map[string]any{"livenessProbe.tcpSocket.port": "http", "livenessProbe.httpGet": nil,
		"readinessProbe.httpGet.path": "/chat/v1/healthz", "readinessProbe.httpGet.port": "http"})
	rendered(t, "metrics and persistence off", off, false, "Service/agentry-chat-metrics@agentry-system", "PersistentVolumeClaim/agentry-chat-data@agentry-system")
	if p := path(off["Service/agentry-chat@agentry-system"], "spec.ports.1"); p != nil {
		t.Errorf("metrics off: the Service still has %v", p)
	}
	if path(offPod, "volumes.0.name") != "data" || path(offPod, "volumes.0.emptyDir") == nil {
		t.Errorf("persistence off: data must be an emptyDir: %v", offPod["volumes"])
	}
	own := template(t, "--set", "chat.enabled=true,chat.persistence.existingClaim=mine,chat.agentRefs=false")
	ownCtr, ownPod := container(t, own, chatDeployment)
	if path(ownPod, "volumes.0.persistentVolumeClaim.claimName") != "mine" || path(ownPod, "automountServiceAccountToken") != false {
		t.Errorf("existing claim, no agent refs: %v", ownPod)
	}
	rendered(t, "chat.agentRefs=false", own, false, "ClusterRole/agentry-chat-agent-reader", "Role/agentry-chat-token-requester@agentry-system")
	if a := strings.Join(argList(ownCtr), " "); !strings.Contains(a, "--agent-refs=false") || strings.Contains(a, "--service-account") {
		t.Errorf("chat.agentRefs=false: %v", ownCtr["args"])
	}
}

// TestReadmeSSOInstall: the README's chat section opens with sign-in through an identity
// provider, and its helm install, as printed, renders the OIDC flags with the client secret
// mounted from the Secret the block's kubectl command creates.
func TestReadmeSSOInstall(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	testutil.NoError(t, err)
	if !strings.Contains(string(readme), "## Chat service (`agentry chat`)\n\n### Sign in with your identity provider\n") {
		t.Fatal("the README's chat section must start with \"Sign in with your identity provider\"")
	}
	lines := strings.Split(strings.ReplaceAll(strings.Join(readmeCommands(t, "### Sign in with your identity provider"), "\n"), "\\\n", " "), "\n")
	var install, secret []string
	for _, l := range lines {
		words := strings.Fields(strings.ReplaceAll(l, "'", ""))
		switch {
		case strings.HasPrefix(l, "helm install "):
			install = words
		case strings.HasPrefix(l, "kubectl -n agentry-system create secret generic "):
			secret = words
		}
	}
	if len(install) < 4 || install[3] != "charts/agentry" || len(secret) < 7 {
		t.Fatalf("the README's SSO block: install %q, secret %q", install, secret)
	}
	var flags []string
	for i := 4; i < len(install); i++ {
		if install[i] == "-n" {
			i++ // the namespace: template() renders in agentry-system, as the block says
			continue
		}
		flags = append(flags, install[i])
	}
	ctr, pod := container(t, template(t, flags...), chatDeployment)
	hasAll(t, "the README's chat args", strings.Join(argList(ctr), " "), "--oidc-issuer=https://sso.example.com/realms/acme",
		"--oidc-client-id=agentry-chat", "--oidc-client-secret-file=/etc/agentry-chat/oidc/clientSecret",
		"--oidc-redirect-url=https://chat.example.com/chat/v1/auth/sso/callback", "--oidc-admin-groups=chat-admins", "--oidc-scopes=email,profile,groups")
	if got := path(named(pod["volumes"])["oidc"], "secret.secretName"); got != secret[6] || !strings.Contains(strings.Join(secret, " "), "--from-literal=clientSecret=") {
		t.Errorf("the block's Secret %q (key clientSecret) is not what the pod mounts: %v", secret, got)
	}
}
