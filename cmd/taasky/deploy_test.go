package main

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	composeloader "github.com/compose-spec/compose-go/v2/loader"
	composetypes "github.com/compose-spec/compose-go/v2/types"
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
// ConfigMap and one Secret; both roles' probes, port and Prometheus scrape
// annotations are the ones it serves on LISTEN_ADDR; the Service sends to
// the web pods alone; every Deployment has a PodDisruptionBudget and
// requests; the migration is a Job.
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
		// Both roles listen on LISTEN_ADDR (a worker-only process with
		// the probes and /metrics alone).
		_, port, _ := net.SplitHostPort(cfg.ListenAddr)
		if len(c.Ports) != 1 || c.Ports[0].Name != "http" || c.Ports[0].ContainerPort == 0 || port != strconv.Itoa(int(c.Ports[0].ContainerPort)) {
			t.Errorf("%s: ports %+v; want one named http on LISTEN_ADDR's port %s", name, c.Ports, port)
		}
		for probe, p := range map[string]*corev1.Probe{"/healthz": c.LivenessProbe, "/readyz": c.ReadinessProbe} {
			if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != probe || p.HTTPGet.Port.String() != "http" {
				t.Errorf("%s: want a probe GET %s on port http, have %+v", name, probe, p)
			}
		}
		if a := d.Spec.Template.Annotations; a["prometheus.io/scrape"] != "true" || a["prometheus.io/port"] != port || a["prometheus.io/path"] != "/metrics" {
			t.Errorf("%s: pod annotations %v; want prometheus.io/scrape \"true\", port %s, path /metrics", name, a, port)
		}
		if want.role&config.RoleWeb == 0 {
			// Not behind a load balancer: it answers 404 to all but the
			// probes and /metrics, and waits no SHUTDOWN_GRACE.
			for _, s := range m.services {
				if s.Spec.Selector["app.kubernetes.io/component"] == d.Spec.Template.Labels["app.kubernetes.io/component"] {
					t.Errorf("%s: Service %s sends to worker-only pods", name, s.Name)
				}
			}
			if g := spec.TerminationGracePeriodSeconds; g == nil || *g <= 20 {
				t.Errorf("%s: terminationGracePeriodSeconds must exceed the 20 s that running jobs may take", name)
			}
			continue
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

// readCompose loads docker-compose.yml with the Compose Specification's own
// loader: its schema refuses a field Compose does not have, and ${…} is
// filled from shell alone (never from this process's environment), as
// `docker compose up` would fill it from the shell that runs it.
func readCompose(t *testing.T, shell map[string]string) (*composetypes.Project, error) {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	return composeloader.LoadWithContext(t.Context(), composetypes.ConfigDetails{
		WorkingDir:  dir,
		ConfigFiles: []composetypes.ConfigFile{{Filename: filepath.Join(dir, "docker-compose.yml"), Content: b}},
		Environment: shell,
	}, func(o *composeloader.Options) { o.SetProjectName("taasky", true) })
}

// TestComposeFile: docker-compose.yml is a valid Compose file with at least
// two Taasky nodes built from the repository's Dockerfile alike, each running
// `taasky serve` with settings it reads and accepts, publishing LISTEN_ADDR's
// port, checked by `taasky probe` on /readyz or /healthz (the image has no
// shell), and started once the PostgreSQL it names is healthy; the secrets
// come from the shell (README: "set SECRET_KEY and the OIDC_* variables
// first"), never from a value written in the file.
func TestComposeFile(t *testing.T) {
	t.Parallel()
	shell := map[string]string{ // what the file's first lines say to set
		"SECRET_KEY": testSecret, "OIDC_ISSUER": "https://id.example.test",
		"OIDC_CLIENT_ID": "taasky", "OIDC_CLIENT_SECRET": "client-secret-from-the-shell",
	}
	p, err := readCompose(t, shell)
	if err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	repo, _ := filepath.Abs("../..")
	var nodes []composetypes.ServiceConfig
	for _, s := range p.Services {
		if s.Build != nil && filepath.Clean(s.Build.Context) == repo {
			nodes = append(nodes, s)
		}
	}
	slices.SortFunc(nodes, func(a, b composetypes.ServiceConfig) int { return strings.Compare(a.Name, b.Name) })
	if len(nodes) < 2 {
		t.Fatalf("%d Taasky services built from the repository; want two nodes or more", len(nodes))
	}

	// The image's entrypoint, which the healthcheck runs without a shell.
	df, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var entrypoint []string
	for line := range strings.Lines(string(df)) {
		if rest, ok := strings.CutPrefix(line, "ENTRYPOINT "); ok {
			if err := json.Unmarshal([]byte(rest), &entrypoint); err != nil || len(entrypoint) != 1 {
				t.Fatalf("Dockerfile: ENTRYPOINT %s: want the binary alone, as a JSON array", rest)
			}
		}
	}
	if entrypoint == nil {
		t.Fatal("Dockerfile: no ENTRYPOINT")
	}
	probed := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" && r.URL.Path != "/healthz" {
			http.NotFound(w, r)
		}
	}))
	defer probed.Close()

	published := map[string]string{}
	dbChecked := map[string]bool{}
	for _, n := range nodes {
		first := nodes[0]
		sameValue := func(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
		if n.Image != first.Image || n.Build.Dockerfile != first.Build.Dockerfile || !maps.EqualFunc(n.Environment, first.Environment, sameValue) {
			t.Errorf("%s: not the same image and settings as %s", n.Name, first.Name)
		}
		if !slices.Equal(n.Command, []string{"serve"}) {
			t.Errorf("%s: command %q; want [serve] (docs/operations.md: full nodes)", n.Name, n.Command)
		}
		role := config.RoleWeb | config.RoleWorker
		read := readNames(role)
		env := map[string]string{}
		for k, v := range n.Environment {
			if !read[k] {
				t.Errorf("%s: %s is not a setting `taasky serve` reads", n.Name, k)
			}
			if v != nil {
				env[k] = *v
			}
		}
		cfg, err := loadConfig(func(k string) string { return env[k] }, role)
		if err != nil {
			t.Errorf("%s: `taasky serve` would refuse this environment: %v", n.Name, err)
			continue
		}
		// As for Kubernetes: time for SHUTDOWN_GRACE, 20 s of requests and 20 s of jobs.
		if g := n.StopGracePeriod; g == nil || time.Duration(*g) <= cfg.ShutdownGrace+40*time.Second {
			t.Errorf("%s: stop_grace_period %v must exceed SHUTDOWN_GRACE (%s) and the 40 s that requests and jobs may take (Compose kills at 10 s otherwise)", n.Name, g, cfg.ShutdownGrace)
		}
		_, port, _ := net.SplitHostPort(cfg.ListenAddr)
		if len(n.Ports) != 1 || strconv.Itoa(int(n.Ports[0].Target)) != port || n.Ports[0].Published == "" {
			t.Errorf("%s: ports %+v; want one, published, to LISTEN_ADDR's port %s", n.Name, n.Ports, port)
		} else if other, ok := published[n.Ports[0].Published]; ok {
			t.Errorf("%s and %s both publish port %s", other, n.Name, n.Ports[0].Published)
		} else {
			published[n.Ports[0].Published] = n.Name
		}

		hc := n.HealthCheck
		if hc == nil || hc.Disable || len(hc.Test) < 3 || hc.Test[0] != "CMD" || hc.Test[1] != entrypoint[0] || hc.Test[2] != "probe" {
			var test []string
			if hc != nil && !hc.Disable {
				test = hc.Test
			}
			t.Errorf("%s: healthcheck %q; want [CMD %s probe …]: the image has no shell", n.Name, test, entrypoint[0])
		} else {
			args := slices.Clone(hc.Test[3:])
			i := slices.Index(args, "--url")
			if i < 0 || i+1 >= len(args) {
				t.Errorf("%s: healthcheck %q has no --url", n.Name, hc.Test)
			} else if u, err := url.Parse(args[i+1]); err != nil || u.Hostname() != "127.0.0.1" && u.Hostname() != "localhost" ||
				u.Port() != port || (u.Path != "/readyz" && u.Path != "/healthz") {
				t.Errorf("%s: healthcheck probes %s; want /readyz or /healthz on 127.0.0.1:%s, inside the container", n.Name, args[i+1], port)
			} else {
				// The same arguments, against a server of ours, pass `taasky probe`.
				args[i+1] = probed.URL + u.Path
				if err := run(t.Context(), append([]string{"probe"}, args...), func(string) string { return "" }, io.Discard, io.Discard); err != nil {
					t.Errorf("%s: `taasky probe %s` fails: %v", n.Name, strings.Join(hc.Test[3:], " "), err)
				}
			}
		}

		// The database: a service of the file, healthy before the node starts,
		// whose credentials are the ones the URL carries.
		db, err := url.Parse(env["DATABASE_URL"])
		if err != nil {
			t.Errorf("%s: DATABASE_URL: %v", n.Name, err)
			continue
		}
		pg, ok := p.Services[db.Hostname()]
		switch {
		case !ok:
			t.Errorf("%s: DATABASE_URL names %s, not a service of the file", n.Name, db.Hostname())
		case n.DependsOn[pg.Name].Condition != composetypes.ServiceConditionHealthy:
			t.Errorf("%s: depends_on %s has condition %q; want %s", n.Name, pg.Name, n.DependsOn[pg.Name].Condition, composetypes.ServiceConditionHealthy)
		case pg.HealthCheck == nil || pg.HealthCheck.Disable || len(pg.HealthCheck.Test) == 0:
			t.Errorf("%s: no healthcheck, so %s cannot wait for it", pg.Name, n.Name)
		case dbChecked[pg.Name]:
		default:
			dbChecked[pg.Name] = true
			pw, _ := db.User.Password()
			for k, want := range map[string]string{"POSTGRES_USER": db.User.Username(), "POSTGRES_PASSWORD": pw, "POSTGRES_DB": strings.TrimPrefix(db.Path, "/")} {
				if v := pg.Environment[k]; v == nil || *v != want {
					t.Errorf("%s: %s is not DATABASE_URL's %q", pg.Name, k, want)
				}
			}
		}
		if smtp, err := url.Parse(env["SMTP_URL"]); err == nil && smtp.Host != "" {
			if _, ok := n.DependsOn[smtp.Hostname()]; !ok {
				t.Errorf("%s: SMTP_URL names %s, which it does not depend on", n.Name, smtp.Hostname())
			}
		}
	}

	// Secrets come from the shell: set, the node has the shell's value;
	// unset, the file refuses to load or leaves them empty (no literal key).
	for _, name := range []string{"SECRET_KEY", "OIDC_CLIENT_SECRET", "VAPID_PRIVATE_KEY"} {
		with := maps.Clone(shell)
		with[name] = "value-of-" + name + "-in-the-shell"
		without := maps.Clone(shell)
		delete(without, name)
		pw, err := readCompose(t, with)
		if err != nil {
			t.Errorf("with %s set: %v", name, err)
			continue
		}
		po, errWithout := readCompose(t, without)
		for _, n := range nodes {
			if v := pw.Services[n.Name].Environment[name]; v == nil || *v != with[name] {
				t.Errorf("%s: %s does not come from the shell", n.Name, name)
			}
			if errWithout == nil {
				if v := po.Services[n.Name].Environment[name]; v != nil && *v != "" {
					t.Errorf("%s: %s has a value written in the file when the shell has none", n.Name, name)
				}
			}
		}
		if errWithout != nil && !strings.Contains(errWithout.Error(), name) {
			t.Errorf("without %s: %v; want an error naming it", name, errWithout)
		}
	}
}
