package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/yaml"

	"github.com/taasky/taasky/internal/config"
)

// manifests are deploy/kubernetes's objects, decoded strictly into the
// Kubernetes API types: a field the API does not have is an error.
type manifests struct {
	configMaps  map[string]*corev1.ConfigMap
	deployments map[string]*appsv1.Deployment
	services    []*corev1.Service
	pdbs        []*policyv1.PodDisruptionBudget
	jobs        []*batchv1.Job
}

func readManifests(t *testing.T) manifests {
	t.Helper()
	files, err := filepath.Glob("../../deploy/kubernetes/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in deploy/kubernetes: %v", err)
	}
	m := manifests{configMaps: map[string]*corev1.ConfigMap{}, deployments: map[string]*appsv1.Deployment{}}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range bytes.Split(b, []byte("\n---\n")) {
			var head struct{ APIVersion, Kind string }
			if err := yaml.Unmarshal(doc, &head); err != nil {
				t.Fatalf("%s #%d: %v", f, i, err)
			}
			strict := func(obj any) {
				if err := yaml.UnmarshalStrict(doc, obj); err != nil {
					t.Errorf("%s #%d (%s): %v", f, i, head.Kind, err)
				}
			}
			switch head.APIVersion + " " + head.Kind {
			case "v1 ConfigMap":
				o := &corev1.ConfigMap{}
				strict(o)
				m.configMaps[o.Name] = o
			case "apps/v1 Deployment":
				o := &appsv1.Deployment{}
				strict(o)
				m.deployments[o.Name] = o
			case "v1 Service":
				o := &corev1.Service{}
				strict(o)
				m.services = append(m.services, o)
			case "policy/v1 PodDisruptionBudget":
				o := &policyv1.PodDisruptionBudget{}
				strict(o)
				m.pdbs = append(m.pdbs, o)
			case "batch/v1 Job":
				o := &batchv1.Job{}
				strict(o)
				m.jobs = append(m.jobs, o)
			default:
				t.Errorf("%s #%d: an object this test does not check: %s %s", f, i, head.APIVersion, head.Kind)
			}
		}
	}
	return m
}

// readNames is every environment variable the command reads for a role.
func readNames(role config.Role) map[string]bool {
	names := map[string]bool{"PPROF_ADDR": true, "GOGC": true, "GOMEMLIMIT": true} // runServe, main
	_, _ = loadConfig(func(name string) string { names[name] = true; return "" }, role)
	return names
}

// TestKubernetesManifests: the manifests decode strictly; web and worker
// run `taasky serve` in their roles with everything it requires, from the
// ConfigMap and one Secret; the web pods' probes and port are the ones it
// serves; every Deployment has a PodDisruptionBudget and requests; the
// migration is a Job.
func TestKubernetesManifests(t *testing.T) {
	t.Parallel()
	m := readManifests(t)
	roles := map[string]struct {
		args []string
		role config.Role
	}{
		"taasky-web":    {[]string{"serve", "--worker=false"}, config.RoleWeb},
		"taasky-worker": {[]string{"serve", "--web=false"}, config.RoleWorker},
	}
	const secret = "taasky"
	fake := map[string]string{ // what the Secret would hold
		"DATABASE_URL": "postgres://taasky@db:5432/taasky", "SECRET_KEY": testSecret,
		"OIDC_CLIENT_SECRET": "s", "SMTP_URL": "smtp://mail:587",
	}
	for name, want := range roles {
		d := m.deployments[name]
		if d == nil {
			t.Errorf("no Deployment %s", name)
			continue
		}
		spec := d.Spec.Template.Spec
		if len(spec.Containers) != 1 {
			t.Errorf("%s: %d containers, want 1", name, len(spec.Containers))
			continue
		}
		c := spec.Containers[0]
		if !slices.Equal(c.Args, want.args) {
			t.Errorf("%s: args %q, want %q", name, c.Args, want.args)
		}
		if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() {
			t.Errorf("%s: no cpu and memory requests", name)
		}
		env := map[string]string{}
		read := readNames(want.role)
		for _, from := range c.EnvFrom {
			if from.ConfigMapRef == nil || m.configMaps[from.ConfigMapRef.Name] == nil {
				t.Errorf("%s: envFrom names no ConfigMap of the manifests", name)
				continue
			}
			cm := m.configMaps[from.ConfigMapRef.Name]
			for k, v := range cm.Data {
				if !readNames(config.RoleWeb | config.RoleWorker)[k] {
					t.Errorf("ConfigMap %s: %s is not a setting taasky reads", cm.Name, k)
				}
				env[k] = v
			}
		}
		for _, e := range c.Env {
			if !read[e.Name] {
				t.Errorf("%s: %s is not a setting `taasky %s` reads", name, e.Name, strings.Join(want.args, " "))
			}
			switch {
			case e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil:
				ref := e.ValueFrom.SecretKeyRef
				if ref.Name != secret || ref.Key != e.Name {
					t.Errorf("%s: %s comes from secret %s key %s; want secret %s key %s", name, e.Name, ref.Name, ref.Key, secret, e.Name)
				}
				if v, ok := fake[e.Name]; ok {
					env[e.Name] = v
				} else if ref.Optional == nil || !*ref.Optional {
					t.Errorf("%s: %s is a required secret key the test has no value for", name, e.Name)
				}
			case e.ValueFrom != nil:
				t.Errorf("%s: %s comes from neither the ConfigMap nor the Secret", name, e.Name)
			default:
				env[e.Name] = e.Value
			}
		}
		cfg, err := loadConfig(func(k string) string { return env[k] }, want.role)
		if err != nil {
			t.Errorf("%s: `taasky serve` would refuse this environment: %v", name, err)
			continue
		}
		if want.role&config.RoleWeb == 0 {
			if c.LivenessProbe != nil || c.ReadinessProbe != nil || len(c.Ports) > 0 {
				t.Errorf("%s: a worker-only process listens nowhere: no ports, no HTTP probes", name)
			}
			continue
		}
		_, port, _ := net.SplitHostPort(cfg.ListenAddr)
		if len(c.Ports) != 1 || c.Ports[0].Name != "http" || c.Ports[0].ContainerPort == 0 || port != strconv.Itoa(int(c.Ports[0].ContainerPort)) {
			t.Errorf("%s: ports %+v; want one named http on LISTEN_ADDR's port %s", name, c.Ports, port)
		}
		for probe, p := range map[string]*corev1.Probe{"/healthz": c.LivenessProbe, "/readyz": c.ReadinessProbe} {
			if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != probe || p.HTTPGet.Port.String() != "http" {
				t.Errorf("%s: want a probe GET %s on port http, have %+v", name, probe, p)
			}
		}
		rp := c.ReadinessProbe
		if rp != nil && float64(rp.PeriodSeconds*max(rp.FailureThreshold, 1)) >= cfg.ShutdownGrace.Seconds() {
			t.Errorf("%s: the readiness probe notices a 503 after %d s, not within SHUTDOWN_GRACE (%s)", name, rp.PeriodSeconds*rp.FailureThreshold, cfg.ShutdownGrace)
		}
		if g := spec.TerminationGracePeriodSeconds; g == nil || float64(*g) <= cfg.ShutdownGrace.Seconds()+20 {
			t.Errorf("%s: terminationGracePeriodSeconds must exceed SHUTDOWN_GRACE and the 20 s requests may take", name)
		}
		served := false
		for _, s := range m.services {
			if s.Spec.Selector["app.kubernetes.io/component"] == "web" && len(s.Spec.Ports) > 0 && s.Spec.Ports[0].TargetPort.String() == "http" {
				served = true
			}
		}
		if !served {
			t.Errorf("%s: no Service sends to its http port", name)
		}
	}
	for name, d := range m.deployments {
		covered := false
		for _, p := range m.pdbs {
			if p.Spec.Selector != nil && p.Spec.Selector.MatchLabels["app.kubernetes.io/component"] == d.Spec.Template.Labels["app.kubernetes.io/component"] {
				covered = true
			}
		}
		if !covered {
			t.Errorf("%s: no PodDisruptionBudget", name)
		}
	}
	if len(m.jobs) != 1 || len(m.jobs[0].Spec.Template.Spec.Containers) != 1 || !slices.Equal(m.jobs[0].Spec.Template.Spec.Containers[0].Args, []string{"migrate"}) {
		t.Errorf("want one Job running `taasky migrate`")
	} else if c := m.jobs[0].Spec.Template.Spec.Containers[0]; len(c.Env) != 1 || c.Env[0].ValueFrom == nil || c.Env[0].ValueFrom.SecretKeyRef == nil ||
		c.Env[0].ValueFrom.SecretKeyRef.Name != secret || !readNames(config.RoleMigrate)[c.Env[0].Name] {
		t.Errorf("the migration Job: want DATABASE_URL from secret %s", secret)
	}
}
