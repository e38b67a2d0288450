package site

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

func TestHandler(t *testing.T) {
	dir := t.TempDir()
	wasm := bytes.Repeat([]byte("\x00asm"), 1000)
	index := []byte("<!doctype html><title>joinlab</title>")
	for name, data := range map[string][]byte{"app.wasm": wasm, "index.html": index, "logo.png": {0x89, 'P', 'N', 'G'}} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(Handler(dir))
	defer srv.Close()

	tests := []struct {
		path, acceptEncoding string
		status               int
		contentType          string
		gzipped              bool
		body                 []byte
	}{
		{"/app.wasm", "gzip, deflate, br", 200, "application/wasm", true, wasm},
		{"/app.wasm", "", 200, "application/wasm", false, wasm},
		{"/app.wasm", "gzip;q=0", 200, "application/wasm", false, wasm},
		{"/", "gzip", 200, "text/html; charset=utf-8", true, index},
		{"/logo.png", "gzip", 200, "image/png", false, []byte{0x89, 'P', 'N', 'G'}},
		{"/missing.js", "gzip", 404, "", false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.path+" "+tc.acceptEncoding, func(t *testing.T) {
			req, err := http.NewRequest("GET", srv.URL+tc.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			// Setting Accept-Encoding ourselves stops the client from decompressing, so the test sees the wire.
			req.Header.Set("Accept-Encoding", tc.acceptEncoding)
			resp, err := http.DefaultTransport.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			if tc.status != 200 {
				return
			}
			if got := resp.Header.Get("Content-Type"); got != tc.contentType {
				t.Errorf("Content-Type %q, want %q", got, tc.contentType)
			}
			var body io.Reader = resp.Body
			if got := resp.Header.Get("Content-Encoding") == "gzip"; got != tc.gzipped {
				t.Fatalf("gzipped = %v, want %v", got, tc.gzipped)
			}
			if tc.gzipped {
				zr, err := gzip.NewReader(resp.Body)
				if err != nil {
					t.Fatal(err)
				}
				body = zr
			}
			got, err := io.ReadAll(body)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tc.body) {
				t.Errorf("body: got %d bytes, want %d", len(got), len(tc.body))
			}
			if resp.Header.Get("Content-Security-Policy") == "" {
				t.Error("no Content-Security-Policy header")
			}
		})
	}
}
