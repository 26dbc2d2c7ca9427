package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/agentry-dev/agentry/internal/devkit/testutil"
)

// podOnDisk is what a kubelet would give a Deployment's only container, on this machine: its
// ConfigMap and Secret volumes written as files at their mount paths under a temporary root
// (emptyDirs and claims as empty directories) and its env with secretKeyRef and
// resourceFieldRef (limits.memory) values resolved. Tests then run agentry with the container's
// args, absolute paths mapped under the root with local.
type podOnDisk struct {
	dep  appsv1.Deployment
	ctr  corev1.Container
	root string
	env  []string
}

// loadPod reads the Deployment name in namespace ns ("" for kubectl's default) and lays out its
// container's files and env.
func loadPod(t *testing.T, c *cluster, ns, name string) *podOnDisk {
	t.Helper()
	nsFlag := ""
	if ns != "" {
		nsFlag = "-n " + ns + " "
	}
	p := &podOnDisk{root: t.TempDir()}
	c.jsonOf(t, nsFlag+"deployment "+name, &p.dep)
	pod := p.dep.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("deployment %s: %d containers", name, len(pod.Containers))
	}
	p.ctr = pod.Containers[0]
	// secret returns the Secret, or false when it does not exist.
	secret := func(name string) (corev1.Secret, bool) {
		var s corev1.Secret
		out := c.sh(t, "kubectl get "+nsFlag+"secret "+name+" -o json --ignore-not-found")
		if strings.TrimSpace(out) == "" {
			return s, false
		}
		testutil.NoError(t, json.Unmarshal([]byte(out), &s))
		return s, true
	}

	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = v
	}
	for _, m := range p.ctr.VolumeMounts {
		v := volumes[m.Name]
		dir := p.local(m.MountPath)
		testutil.NoError(t, os.MkdirAll(dir, 0o700))
		switch {
		case v.ConfigMap != nil:
			var cm corev1.ConfigMap
			c.jsonOf(t, nsFlag+"configmap "+v.ConfigMap.Name, &cm)
			for k, val := range cm.Data {
				writeFile(t, filepath.Join(dir, k), []byte(val))
			}
		case v.Secret != nil:
			s, ok := secret(v.Secret.SecretName)
			if !ok {
				if v.Secret.Optional != nil && *v.Secret.Optional {
					continue
				}
				t.Fatalf("secret %s is missing", v.Secret.SecretName)
			}
			for k, val := range s.Data {
				writeFile(t, filepath.Join(dir, k), val)
			}
		case v.EmptyDir != nil, v.PersistentVolumeClaim != nil:
		default:
			t.Fatalf("volume %s: unsupported source", v.Name)
		}
	}

	for _, e := range p.ctr.Env {
		switch {
		case e.ValueFrom == nil:
			p.env = append(p.env, e.Name+"="+e.Value)
		case e.ValueFrom.SecretKeyRef != nil:
			s, ok := secret(e.ValueFrom.SecretKeyRef.Name)
			if !ok {
				t.Fatalf("env %s: secret %s is missing", e.Name, e.ValueFrom.SecretKeyRef.Name)
			}
			p.env = append(p.env, e.Name+"="+string(s.Data[e.ValueFrom.SecretKeyRef.Key]))
		case e.ValueFrom.ResourceFieldRef != nil && e.ValueFrom.ResourceFieldRef.Resource == "limits.memory":
			limit := p.ctr.Resources.Limits[corev1.ResourceMemory]
			p.env = append(p.env, fmt.Sprintf("%s=%d", e.Name, limit.Value()))
		default:
			t.Fatalf("env %s: unsupported source", e.Name)
		}
	}
	return p
}

// localArgs are the container's args with absolute paths (also in file: URLs) under the pod's
// root, and the value of each flag in addrs replaced by its address there.
func (p *podOnDisk) localArgs(addrs map[string]string) []string {
	var args []string
	for i := 0; i < len(p.ctr.Args); i++ {
		a := p.ctr.Args[i]
		switch addr, ok := addrs[a]; {
		case ok && i+1 < len(p.ctr.Args):
			args = append(args, a, addr)
			i++
		case strings.HasPrefix(a, "/"):
			args = append(args, p.local(a))
		case strings.HasPrefix(a, "file:/"):
			args = append(args, "file:"+p.local(strings.TrimPrefix(a, "file:")))
		default:
			args = append(args, a)
		}
	}
	return args
}

// local maps an absolute path of the container under the pod's temporary root.
func (p *podOnDisk) local(path string) string { return filepath.Join(p.root, path) }

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	testutil.NoError(t, os.WriteFile(path, data, 0o600))
}
