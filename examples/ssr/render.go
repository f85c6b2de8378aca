package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"sort"
	"strconv"
)

// job is a Hypernova-style render job: a component name and its props.
type job struct {
	Component string         `json:"component"`
	Props     map[string]any `json:"props"`
}

// renderHandler decodes a job and renders it to HTML. bodybuffer in front
// has read the whole body, within the size limit. The render is CPU
// bound: it walks the props and then hashes work KiB, standing in for a
// React renderToString.
func renderHandler(instance string, work int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var j job
		if err := json.NewDecoder(r.Body).Decode(&j); err != nil {
			http.Error(w, "bad render job: "+err.Error(), http.StatusBadRequest)
			return
		}
		if j.Component == "" {
			http.Error(w, "bad render job: no component", http.StatusBadRequest)
			return
		}
		var b bytes.Buffer
		fmt.Fprintf(&b, "<div data-hypernova-key=%q>", html.EscapeString(j.Component))
		renderValue(&b, j.Props)
		fmt.Fprintf(&b, "</div><!-- %s -->\n", burn(b.Bytes(), work))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("X-Instance", instance)
		w.Write(b.Bytes())
	}
}

// renderValue writes v as nested HTML, map keys in order.
func renderValue(b *bytes.Buffer, v any) {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString("<dl>")
		for _, k := range keys {
			b.WriteString("<dt>")
			b.WriteString(html.EscapeString(k))
			b.WriteString("</dt><dd>")
			renderValue(b, v[k])
			b.WriteString("</dd>")
		}
		b.WriteString("</dl>")
	case []any:
		b.WriteString("<ul>")
		for _, e := range v {
			b.WriteString("<li>")
			renderValue(b, e)
			b.WriteString("</li>")
		}
		b.WriteString("</ul>")
	case string:
		b.WriteString(html.EscapeString(v))
	case float64:
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case nil:
	}
}

// burn hashes n KiB seeded by seed and returns a short digest, so the work
// cannot be optimized away.
func burn(seed []byte, n int) string {
	sum := sha256.Sum256(seed)
	block := make([]byte, 1024)
	for i := range n {
		copy(block, sum[:])
		block[len(block)-1] = byte(i)
		sum = sha256.Sum256(block)
	}
	return hex.EncodeToString(sum[:8])
}
