package registry

import (
	"encoding/json"
	"os/exec"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/joinlab/joinlab/engine/trace"
)

// filled returns a payload of p's type with every field set to a value of its own, different from the
// field's neighbours, so a codec that shifted or dropped a field would not give it back.
func filled(p trace.Payload) trace.Payload {
	v := reflect.New(reflect.TypeOf(p)).Elem()
	for i := range v.NumField() {
		set(v.Field(i), i+1)
	}
	return v.Interface().(trace.Payload)
}

func set(f reflect.Value, n int) {
	switch f.Kind() {
	case reflect.String:
		f.SetString("v" + string(rune('a'+n)))
	case reflect.Int, reflect.Int32, reflect.Int64:
		f.SetInt(int64(n * 7))
	case reflect.Uint64:
		f.SetUint(uint64(n * 11))
	case reflect.Float64:
		f.SetFloat(float64(n) + 0.5)
	case reflect.Bool:
		f.SetBool(true)
	case reflect.Slice:
		s := reflect.MakeSlice(f.Type(), 2, 2)
		set(s.Index(0), n)
		set(s.Index(1), n+1)
		f.Set(s)
	case reflect.Struct: // a list's element (joinevent.SaltedRow): each field a value of its own
		for i := range f.NumField() {
			set(f.Field(i), n+i)
		}
	case reflect.Pointer:
		p := reflect.New(f.Type().Elem())
		set(p.Elem(), n)
		f.Set(p)
	default:
		panic("registry test: no value for a field of kind " + f.Kind().String())
	}
}

// TestEveryKindRoundTrips holds each registered type to what the codecs need (exported, tagged fields; a
// value receiver) and sends a filled and a zero event of it through both forms.
func TestEveryKindRoundTrips(t *testing.T) {
	for _, p := range payloads {
		typ := reflect.TypeOf(p)
		for i := range typ.NumField() {
			if f := typ.Field(i); !f.IsExported() || f.Tag.Get("json") == "" {
				t.Errorf("%v.%s: every field of a payload is exported and names itself in a json tag", typ, f.Name)
			}
		}
		for _, pay := range []trace.Payload{filled(p), p} {
			e := trace.Event{At: 1234 * time.Microsecond, Op: "join#1", Payload: pay}
			raw, err := AppendCompact(nil, e)
			if err != nil {
				t.Fatal(err)
			}
			got, err := DecodeCompact(raw)
			if err != nil || !reflect.DeepEqual(got, e) {
				t.Fatalf("%s: compact %s decodes to %+v (%v), want %+v", p.Kind(), raw, got, err, e)
			}
			line, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			got, err = UnmarshalEvent(line)
			if err != nil || !reflect.DeepEqual(got, e) {
				t.Fatalf("%s: JSON line %s decodes to %+v (%v), want %+v", p.Kind(), line, got, err, e)
			}
		}
	}
}

func TestUnknownKindsAreErrors(t *testing.T) {
	if _, err := AppendCompact(nil, trace.Event{Payload: unregistered{}}); err == nil {
		t.Error("an unregistered kind was encoded")
	}
	for _, raw := range []string{`[999,0,""]`, `[-1,0,""]`, `[0,0]`, `{}`, `[0,0,"",1,2,3,4,5]`} {
		if _, err := DecodeCompact([]byte(raw)); err == nil {
			t.Errorf("%s decoded", raw)
		}
	}
	if _, err := UnmarshalEvent([]byte(`{"kind":"no_such_kind","at_ns":0}`)); err == nil {
		t.Error("an unregistered kind's JSON line decoded")
	}
}

type unregistered struct{}

func (unregistered) Kind() trace.Kind { return "unregistered" }

// The page imports this package to decode events: it must bring no more of the engine than the event types
// (and engine/memory, a leaf, for the budget's), or the page's WebAssembly would carry the engine it leaves to
// its worker.
func TestTheRegistryCarriesNoEngine(t *testing.T) {
	if runtime.GOOS == "js" {
		t.Skip("under js/wasm there is no go command to list the imports; the native run checks them")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const module = "github.com/joinlab/joinlab/"
	allowed := map[string]bool{
		"engine/trace": true, "engine/trace/registry": true, "engine/memory": true,
		"engine/connector/connevent": true, "engine/dynfilter/dfevent": true, "engine/join/joinevent": true,
		"engine/plan/planevent": true,
	}
	for _, pkg := range strings.Fields(string(out)) {
		if rest, ok := strings.CutPrefix(pkg, module); ok && !allowed[rest] {
			t.Errorf("the registry imports %s", pkg)
		}
	}
}
