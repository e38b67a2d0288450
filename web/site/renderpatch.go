package site

import (
	"fmt"
	"strings"
)

// Vugu v0.4.0 re-sends every node of the page on each render, and its DOM helper script applies every
// instruction as it comes: each attribute is set again, each text node rewritten, and each element with
// text content (vg-content, and the static text vugugen compacts the same way) has its innerHTML parsed
// again. A render that changes two numbers thus costs the browser a hundred HTML parses and a relayout of
// every text on the page; in a trace of a long run, HTML parsing, style and layout were about half of the
// main thread's busy time. renderPatches make the script skip a write that would leave the DOM as it is, so
// a render costs the browser what it changes.
//
// An element's innerHTML is skipped when the script itself set that same text last and nothing since has
// synced the element's children one by one (moving to its first child clears the record). The live value is
// compared for attributes, text and scalar properties. Attributes whose setting has side effects beyond
// their value — an option's selected, a box's checked, which re-select when set again — are always set.
//
// Each patch must match the pinned script exactly once: a Vugu upgrade that changes the script fails the
// build instead of shipping it unpatched.
var renderPatches = []struct{ what, old, new string }{
	{
		"attributes",
		`e.setAttribute(t,n),x.elAttrNames[t]=!0`,
		`(t=="selected"||t=="checked"||e.getAttribute(t)!==n)&&e.setAttribute(t,n),x.elAttrNames[t]=!0`,
	},
	{
		"namespaced attributes",
		`t.setAttributeNS(e,n,s),x.elAttrNames[n]=!0`,
		`t.getAttributeNS(e,n)!==s&&t.setAttributeNS(e,n,s),x.elAttrNames[n]=!0`,
	},
	{
		"text",
		`else x.el.textContent=e;break}case c:`,
		`else x.el.data!==e&&(x.el.data=e);break}case c:`,
	},
	{
		"inner HTML",
		`x.el.innerHTML=(x.bufferedInnerHTML||"")+e,x.bufferedInnerHTML=null;break}`,
		`{let h=(x.bufferedInnerHTML||"")+e;x.el.vuguInnerHTML!==h&&(x.el.innerHTML=h,x.el.vuguInnerHTML=h)}` +
			`x.bufferedInnerHTML=null;break}`,
	},
	{
		"children synced one by one",
		`use opcodeMoveToFirstChild";x.nextElMove="first_child";break}`,
		`use opcodeMoveToFirstChild";x.el.vuguInnerHTML=void 0,x.nextElMove="first_child";break}`,
	},
	{
		"properties",
		`e[t]=JSON.parse(n);break}`,
		`{let v=JSON.parse(n);(typeof v=="object"&&v!==null||e[t]!==v)&&(e[t]=v)}break}`,
	},
}

// patchRenderer applies renderPatches to Vugu's DOM helper script.
func patchRenderer(script string) (string, error) {
	for _, p := range renderPatches {
		if n := strings.Count(script, p.old); n != 1 {
			return "", fmt.Errorf("vugu helpers: patch for %s matches %d times, want once (a Vugu upgrade?)", p.what, n)
		}
		script = strings.Replace(script, p.old, p.new, 1)
	}
	return script, nil
}
