package cluster

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"
)

// coreDNSManifest runs CoreDNS as the cluster's DNS: cluster.local only, no forward (nothing may
// leave), non-root on port 1053 behind the kube-dns Service's 53.
const coreDNSManifest = `apiVersion: v1
kind: ServiceAccount
metadata: {name: coredns, namespace: kube-system}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: "system:coredns"}
rules:
- apiGroups: [""]
  resources: [endpoints, services, pods, namespaces]
  verbs: [list, watch]
- apiGroups: [discovery.k8s.io]
  resources: [endpointslices]
  verbs: [list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: "system:coredns"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: "system:coredns"}
subjects: [{kind: ServiceAccount, name: coredns, namespace: kube-system}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: coredns, namespace: kube-system}
data:
  Corefile: |
    .:1053 {
        errors
        health :8080
        ready :8181
        kubernetes cluster.local in-addr.arpa ip6.arpa {
            pods insecure
            fallthrough in-addr.arpa ip6.arpa
        }
        cache 30
        loop
    }
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: coredns, namespace: kube-system, labels: {k8s-app: kube-dns}}
spec:
  replicas: 1
  selector: {matchLabels: {k8s-app: kube-dns}}
  template:
    metadata: {labels: {k8s-app: kube-dns}}
    spec:
      serviceAccountName: coredns
      dnsPolicy: Default
      securityContext: {runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532}
      containers:
      - name: coredns
        image: %s
        imagePullPolicy: Never
        args: ["-conf", "/etc/coredns/Corefile"]
        ports:
        - {name: dns, containerPort: 1053, protocol: UDP}
        - {name: dns-tcp, containerPort: 1053, protocol: TCP}
        readinessProbe: {httpGet: {path: /ready, port: 8181}, periodSeconds: 2}
        livenessProbe: {httpGet: {path: /health, port: 8080}, periodSeconds: 10}
        securityContext: {readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
        resources: {requests: {cpu: 10m, memory: 20Mi}, limits: {memory: 128Mi}}
        volumeMounts: [{name: config, mountPath: /etc/coredns}]
      volumes: [{name: config, configMap: {name: coredns}}]
---
apiVersion: v1
kind: Service
metadata: {name: kube-dns, namespace: kube-system, labels: {k8s-app: kube-dns}}
spec:
  clusterIP: %s
  selector: {k8s-app: kube-dns}
  ports:
  - {name: dns, port: 53, targetPort: 1053, protocol: UDP}
  - {name: dns-tcp, port: 53, targetPort: 1053, protocol: TCP}
`

func (c *Cluster) coreDNS(ctx context.Context) error {
	if err := c.Apply(ctx, fmt.Sprintf(coreDNSManifest, CoreDNSImage, DNSService)); err != nil {
		return err
	}
	return c.Wait(ctx, 90*time.Second, "CoreDNS ready", func() (bool, error) {
		out, err := c.Kubectl(ctx, "-n", "kube-system", "get", "deployment", "coredns", "-o", "jsonpath={.status.readyReplicas}")
		return err == nil && strings.TrimSpace(out) == "1", nil
	})
}

// Apply applies a manifest given as text.
func (c *Cluster) Apply(ctx context.Context, manifest string) error {
	f, err := os.CreateTemp(c.Dir, "manifest-*.yaml")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(manifest); err != nil {
		f.Close()
		return err
	}
	f.Close()
	_, err = c.Kubectl(ctx, "apply", "-f", f.Name())
	return err
}

// ScriptedModel is a Deployment and Service (default/scripted-model:8090) running the
// scripted OpenAI-wire model from the agentry image: the one stand-in of the cluster tests, no
// real model being reachable.
func ScriptedModel(image string) string { return fmt.Sprintf(scriptedModelManifest, image) }

const scriptedModelManifest = `apiVersion: apps/v1
kind: Deployment
metadata: {name: scripted-model, namespace: default}
spec:
  selector: {matchLabels: {app: scripted-model}}
  template:
    metadata: {labels: {app: scripted-model}}
    spec:
      securityContext: {runAsNonRoot: true}
      containers:
      - name: model
        image: %s
        imagePullPolicy: IfNotPresent
        args: [scripted-model, --addr, ":8090"]
        ports: [{containerPort: 8090}]
        readinessProbe: {httpGet: {path: /v1/models, port: 8090}, periodSeconds: 1}
        securityContext: {readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
---
apiVersion: v1
kind: Service
metadata: {name: scripted-model, namespace: default}
spec:
  selector: {app: scripted-model}
  ports: [{port: 8090, targetPort: 8090}]
`
