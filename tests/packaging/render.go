// render.go - render the staffer Helm chart without helm.
//
// Helm renders charts with Go's text/template plus a function library
// (sprig and its own).  This program does the same for the small set of
// functions the chart is allowed to use, so that CI can render and check the
// chart on a machine with the Go standard library and nothing else:
//
//	go run render.go -chart DIR -chart-json Chart.json -values v1.json \
//	    [-values v2.json ...] [-set a.b=1 ...] [-release staffer] \
//	    [-namespace keda] [-out FILE] [-notes FILE]
//
// Chart.yaml and values files are given as JSON (the caller converts YAML
// with python3-yaml; Go's standard library has no YAML parser).  Values
// files are merged left to right like `helm -f a -f b` (maps merge, a null
// deletes a key), then each -set like `helm --set`.  Numbers from files are
// float64 and numbers from -set are int64, as in Helm, so the chart meets
// the same type traps it would meet there.
//
// Templates run with missingkey=error, as `helm template --strict` and
// `helm lint --strict` run them: a template that reads a key the values
// may lack must use index or hasKey, or it fails here as it would there.
// .Files.Get reads a file of the chart.
//
// Output: every non-partial template under templates/ in name order, each
// as "---\n# Source: <chart>/templates/<file>\n<text>", like `helm template`;
// templates that render to only whitespace are left out, as Helm does.
// Errors (a `required` or `fail`, a bad template) go to stderr, exit 1.
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/template"
)

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func main() {
	var values multiFlag
	chartDir := flag.String("chart", "", "chart directory")
	chartJSON := flag.String("chart-json", "", "Chart.yaml converted to JSON")
	release := flag.String("release", "staffer", "release name")
	namespace := flag.String("namespace", "keda", "release namespace")
	kubeVersion := flag.String("kube-version", "v1.35.0", "Capabilities.KubeVersion.Version")
	out := flag.String("out", "", "write manifests here (default stdout)")
	notes := flag.String("notes", "", "also render NOTES.txt to this file")
	var sets multiFlag
	flag.Var(&values, "values", "values JSON file (repeatable, merged in order)")
	flag.Var(&sets, "set", "key.path=value, as helm --set (repeatable, after the files)")
	flag.Parse()
	if *chartDir == "" || *chartJSON == "" || len(values) == 0 {
		fmt.Fprintln(os.Stderr, "usage: render -chart DIR -chart-json FILE -values FILE [-values FILE...]")
		os.Exit(2)
	}
	if err := run(*chartDir, *chartJSON, values, sets, *release, *namespace, *kubeVersion, *out, *notes); err != nil {
		fmt.Fprintln(os.Stderr, "render:", err)
		os.Exit(1)
	}
}

func readJSON(path string) (map[string]interface{}, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var v interface{}
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if v == nil {
		return map[string]interface{}{}, nil
	}
	m, ok := v.(map[string]interface{})
	if !ok {
		return nil, fmt.Errorf("%s: not a JSON object", path)
	}
	return m, nil
}

// merge src into dst like Helm's value coalescing for -f files: maps merge
// recursively, anything else replaces, a null removes the key.
func merge(dst, src map[string]interface{}) map[string]interface{} {
	for k, sv := range src {
		if sv == nil {
			delete(dst, k)
			continue
		}
		sm, sok := sv.(map[string]interface{})
		dm, dok := dst[k].(map[string]interface{})
		if sok && dok {
			dst[k] = merge(dm, sm)
		} else {
			dst[k] = sv
		}
	}
	return dst
}

// setValue applies one `helm --set` to vals with the types Helm's strvals
// gives: whole numbers int64, true/false bool, null deletes, else string.
// (A subset: no lists, no escaped dots or commas.)
func setValue(vals map[string]interface{}, kv string) error {
	eq := strings.IndexByte(kv, '=')
	if eq <= 0 {
		return fmt.Errorf("-set %q: want key.path=value", kv)
	}
	path := strings.Split(kv[:eq], ".")
	raw := kv[eq+1:]
	var v interface{} = raw
	if i, err := strconv.ParseInt(raw, 10, 64); err == nil {
		v = i
	} else if raw == "true" || raw == "false" {
		v = raw == "true"
	} else if raw == "null" {
		v = nil
	}
	m := vals
	for _, k := range path[:len(path)-1] {
		next, ok := m[k].(map[string]interface{})
		if !ok {
			next = map[string]interface{}{}
			m[k] = next
		}
		m = next
	}
	if v == nil {
		delete(m, path[len(path)-1])
	} else {
		m[path[len(path)-1]] = v
	}
	return nil
}

// files is .Files: the chart's files, read on demand.
type files struct{ dir string }

// Get returns a file's content, "" when it cannot be read, as Helm does.
func (f files) Get(name string) string {
	clean := filepath.Clean(name)
	if filepath.IsAbs(clean) || strings.HasPrefix(clean, "..") {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(f.dir, clean))
	if err != nil {
		return ""
	}
	return string(b)
}

func run(chartDir, chartJSON string, valueFiles, sets []string, release, namespace, kubeVersion, out, notes string) error {
	chart, err := readJSON(chartJSON)
	if err != nil {
		return err
	}
	vals := map[string]interface{}{}
	for _, f := range valueFiles {
		v, err := readJSON(f)
		if err != nil {
			return err
		}
		vals = merge(vals, v)
	}
	for _, kv := range sets {
		if err := setValue(vals, kv); err != nil {
			return err
		}
	}
	str := func(k string) string { s, _ := chart[k].(string); return s }
	name := str("name")
	if name == "" {
		return errors.New("Chart.yaml: no name")
	}
	top := map[string]interface{}{
		"Values": vals,
		"Release": map[string]interface{}{
			"Name": release, "Namespace": namespace, "Service": "Helm",
			"IsInstall": true, "IsUpgrade": false, "Revision": 1,
		},
		"Chart": map[string]interface{}{
			"Name": name, "Version": str("version"), "AppVersion": str("appVersion"),
			"Description": str("description"), "Type": str("type"),
		},
		"Capabilities": map[string]interface{}{
			"KubeVersion": map[string]interface{}{"Version": kubeVersion},
		},
		"Template": map[string]interface{}{"BasePath": name + "/templates"},
		"Files":    files{chartDir},
	}

	// Every template under templates/, subfolders (tests/) included, by
	// its path from there, as Helm names them.
	tdir := filepath.Join(chartDir, "templates")
	root := template.New("chart")
	var files []string
	err = filepath.WalkDir(tdir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(tdir, path)
		if err != nil {
			return err
		}
		n := filepath.ToSlash(rel)
		ext := filepath.Ext(n)
		if ext == ".yaml" || ext == ".yml" || ext == ".tpl" || n == "NOTES.txt" {
			files = append(files, n)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(files)

	// Like `helm template --strict`: reading a missing map key is an error.
	root.Option("missingkey=error")
	root.Funcs(funcMap(root))
	for _, n := range files {
		data, err := os.ReadFile(filepath.Join(tdir, n))
		if err != nil {
			return err
		}
		tname := name + "/templates/" + n
		if _, err := root.New(tname).Parse(string(data)); err != nil {
			return err
		}
	}

	var manifests bytes.Buffer
	for _, n := range files {
		if strings.HasPrefix(filepath.Base(n), "_") || n == "NOTES.txt" {
			continue
		}
		text, err := exec(root, name+"/templates/"+n, top)
		if err != nil {
			return err
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		fmt.Fprintf(&manifests, "---\n# Source: %s/templates/%s\n%s\n", name, n, strings.TrimRight(text, "\n"))
	}
	if notes != "" {
		for _, n := range files {
			if n != "NOTES.txt" {
				continue
			}
			text, err := exec(root, name+"/templates/"+n, top)
			if err != nil {
				return err
			}
			if err := os.WriteFile(notes, []byte(text), 0o644); err != nil {
				return err
			}
		}
	}
	if out == "" {
		_, err = os.Stdout.Write(manifests.Bytes())
		return err
	}
	return os.WriteFile(out, manifests.Bytes(), 0o644)
}

func exec(root *template.Template, name string, data interface{}) (string, error) {
	var b bytes.Buffer
	if err := root.ExecuteTemplate(&b, name, data); err != nil {
		return "", err
	}
	// Helm's engine turns the "<no value>" of missing keys into "".
	return strings.ReplaceAll(b.String(), "<no value>", ""), nil
}

// ---- the function library --------------------------------------------------

// empty is sprig's notion: nil, false, 0, "" and empty collections.
func empty(v interface{}) bool {
	if v == nil {
		return true
	}
	r := reflect.ValueOf(v)
	switch r.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return r.Len() == 0
	case reflect.Bool:
		return !r.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return r.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return r.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return r.Float() == 0
	case reflect.Ptr, reflect.Interface:
		return r.IsNil()
	}
	return false
}

// strval is sprig's string conversion.
func strval(v interface{}) string {
	switch s := v.(type) {
	case string:
		return s
	case []byte:
		return string(s)
	case error:
		return s.Error()
	case fmt.Stringer:
		return s.String()
	}
	return fmt.Sprintf("%v", v)
}

func toInt(v interface{}) int {
	switch n := v.(type) {
	case int:
		return n
	case int64:
		return int(n)
	case float64:
		return int(n)
	case string:
		i, _ := strconv.Atoi(n)
		return i
	}
	return 0
}

func indent(n interface{}, s string) string {
	pad := strings.Repeat(" ", toInt(n))
	return pad + strings.ReplaceAll(s, "\n", "\n"+pad)
}

func funcMap(root *template.Template) template.FuncMap {
	fm := template.FuncMap{
		"include": func(name string, data interface{}) (string, error) {
			var b bytes.Buffer
			if err := root.ExecuteTemplate(&b, name, data); err != nil {
				return "", err
			}
			return strings.ReplaceAll(b.String(), "<no value>", ""), nil
		},
		"toYaml": func(v interface{}) string {
			return strings.TrimSuffix(toYAML(v), "\n")
		},
		"toJson": func(v interface{}) string {
			b, err := json.Marshal(v)
			if err != nil {
				return ""
			}
			return string(b)
		},
		"indent":  indent,
		"nindent": func(n interface{}, s string) string { return "\n" + indent(n, s) },
		"quote": func(args ...interface{}) string {
			var out []string
			for _, a := range args {
				if a != nil {
					out = append(out, fmt.Sprintf("%q", strval(a)))
				}
			}
			return strings.Join(out, " ")
		},
		"default": func(d interface{}, given ...interface{}) interface{} {
			if len(given) == 0 || empty(given[0]) {
				return d
			}
			return given[0]
		},
		"trunc": func(n interface{}, s string) string {
			c := toInt(n)
			if c >= 0 && len(s) > c {
				return s[:c]
			}
			if c < 0 && len(s)+c > 0 {
				return s[len(s)+c:]
			}
			return s
		},
		"trimSuffix": func(suffix, s string) string { return strings.TrimSuffix(s, suffix) },
		"replace":    func(old, new, s string) string { return strings.ReplaceAll(s, old, new) },
		"sha256sum": func(s string) string {
			h := sha256.Sum256([]byte(s))
			return hex.EncodeToString(h[:])
		},
		"required": func(msg string, v interface{}) (interface{}, error) {
			if v == nil {
				return nil, errors.New(msg)
			}
			if s, ok := v.(string); ok && s == "" {
				return nil, errors.New(msg)
			}
			return v, nil
		},
		"fail": func(msg string) (string, error) { return "", errors.New(msg) },
		// sprig's float64: numbers of any kind (and numeric strings) as
		// float64, so int64 from --set and float64 from files compare.
		"float64": func(v interface{}) float64 {
			switch n := v.(type) {
			case int:
				return float64(n)
			case int64:
				return float64(n)
			case float64:
				return n
			case string:
				f, _ := strconv.ParseFloat(n, 64)
				return f
			}
			return 0
		},
		"hasKey": func(m map[string]interface{}, k string) bool { _, ok := m[k]; return ok },
	}
	// Helm's tpl: a string rendered as a template with the chart's own
	// functions and defined templates, missing keys still errors.
	fm["tpl"] = func(text string, data interface{}) (string, error) {
		t, err := root.Clone()
		if err != nil {
			return "", err
		}
		t, err = t.New("tpl").Parse(text)
		if err != nil {
			return "", fmt.Errorf("tpl: %v", err)
		}
		var b bytes.Buffer
		if err := t.Execute(&b, data); err != nil {
			return "", err
		}
		return strings.ReplaceAll(b.String(), "<no value>", ""), nil
	}
	return fm
}

// ---- a small YAML emitter (block style, like Helm's toYaml) -----------------

var plainKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_./-]*$`)

// Keys that YAML 1.1 readers would take for booleans or null.
var reservedWord = map[string]bool{
	"y": true, "n": true, "yes": true, "no": true, "on": true, "off": true,
	"true": true, "false": true, "null": true, "~": true,
}

func yamlKey(k string) string {
	if plainKey.MatchString(k) && !reservedWord[strings.ToLower(k)] {
		return k
	}
	return yamlString(k)
}

// Strings are always double-quoted: JSON string syntax is valid YAML and
// never mistaken for a number, boolean or null.
func yamlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func yamlScalar(v interface{}) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return yamlString(x)
	case bool, float64, int, int64:
		b, _ := json.Marshal(x)
		return string(b)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func isCollection(v interface{}) (bool, int) {
	switch x := v.(type) {
	case map[string]interface{}:
		return true, len(x)
	case []interface{}:
		return true, len(x)
	}
	return false, 0
}

func toYAML(v interface{}) string {
	var b strings.Builder
	writeYAML(&b, v, 0)
	return b.String()
}

func writeYAML(b *strings.Builder, v interface{}, level int) {
	pad := strings.Repeat("  ", level)
	switch x := v.(type) {
	case map[string]interface{}:
		if len(x) == 0 {
			b.WriteString(pad + "{}\n")
			return
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			c, n := isCollection(x[k])
			if c && n > 0 {
				b.WriteString(pad + yamlKey(k) + ":\n")
				if _, isList := x[k].([]interface{}); isList {
					// Lists under a key at the key's own indent, as Helm does.
					writeYAML(b, x[k], level)
				} else {
					writeYAML(b, x[k], level+1)
				}
			} else if c {
				if _, isList := x[k].([]interface{}); isList {
					b.WriteString(pad + yamlKey(k) + ": []\n")
				} else {
					b.WriteString(pad + yamlKey(k) + ": {}\n")
				}
			} else {
				b.WriteString(pad + yamlKey(k) + ": " + yamlScalar(x[k]) + "\n")
			}
		}
	case []interface{}:
		if len(x) == 0 {
			b.WriteString(pad + "[]\n")
			return
		}
		for _, item := range x {
			c, n := isCollection(item)
			if !c || n == 0 {
				if c {
					if _, isList := item.([]interface{}); isList {
						b.WriteString(pad + "- []\n")
					} else {
						b.WriteString(pad + "- {}\n")
					}
				} else {
					b.WriteString(pad + "- " + yamlScalar(item) + "\n")
				}
				continue
			}
			// Render the item one level deeper, then put "- " on its first line.
			var sub strings.Builder
			writeYAML(&sub, item, level+1)
			s := sub.String()
			b.WriteString(pad + "- " + strings.TrimPrefix(s, pad+"  "))
		}
	default:
		b.WriteString(pad + yamlScalar(v) + "\n")
	}
}
