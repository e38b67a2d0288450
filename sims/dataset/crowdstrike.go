package dataset

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/joinlab/joinlab/engine/column"
	"github.com/joinlab/joinlab/engine/connector"
)

// CrowdStrikeSchema is a Falcon detection's shape: who, where, how bad, which ATT&CK tactic.
var CrowdStrikeSchema = column.Schema{
	{Name: "detection_id", Type: column.String},
	{Name: "timestamp", Type: column.DateTime},
	{Name: "user_name", Type: column.String},
	{Name: "device", Type: column.Dynamic},
	{Name: "severity", Type: column.Long},
	{Name: "severity_name", Type: column.String},
	{Name: "tactic", Type: column.String},
	{Name: "technique", Type: column.String},
	{Name: "status", Type: column.String},
	{Name: "device.device_id", Type: column.String, Hidden: true},
	{Name: "device.hostname", Type: column.String, Hidden: true},
	{Name: "device.platform_name", Type: column.String, Hidden: true},
}

var tactics = []struct{ tactic, technique string }{
	{"Credential Access", "OS Credential Dumping"}, {"Execution", "Command and Scripting Interpreter"},
	{"Persistence", "Scheduled Task/Job"}, {"Defense Evasion", "Obfuscated Files or Information"},
	{"Lateral Movement", "Remote Services"}, {"Initial Access", "Phishing"}, {"Discovery", "Account Discovery"},
	{"Exfiltration", "Exfiltration Over Web Service"},
}

// CrowdStrikeDetections generates n detections over the users of the Okta population (Zipf skew skew, so a
// few users carry many detections), with timestamps spread over span before end.
func CrowdStrikeDetections(n, users int, skew float64, end time.Time, span time.Duration, seed uint64) *MemTable {
	rng := rand.New(rand.NewPCG(seed, 0xc5))
	z := newZipf(rng, skew, users)
	t := column.NewTable(CrowdStrikeSchema)
	for i := 0; i < n; i++ {
		u := int(z.Uint64())
		h := mix(seed ^ uint64(i)*0x9e3779b97f4a7c15)
		sev := int64(10 + h%91)
		name := "Low"
		switch {
		case sev >= 90:
			name = "Critical"
		case sev >= 70:
			name = "High"
		case sev >= 40:
			name = "Medium"
		}
		tac := tactics[(h>>8)%uint64(len(tactics))]
		platform := []string{"Windows", "Mac", "Linux"}[(h>>16)%3]
		host := fmt.Sprintf("%s-%s-%02d", []string{"wks", "lap", "srv"}[(h>>16)%3], firstNames[u%len(firstNames)], u%100)
		devID := fmt.Sprintf("%032x", mix(uint64(u)*0x51)^mix(uint64(u)))[:32]
		ts := end.Add(-time.Duration(unit(mix(h)) * float64(span))).UnixNano()
		status := []string{"new", "in_progress", "true_positive", "false_positive", "closed"}[(h>>24)%5]
		vals := []string{fmt.Sprintf("ldt:%s:%d", devID[:16], i), "", Login(u), jsonObject("device_id", devID, "hostname", host, "platform_name", platform),
			"", name, tac.tactic, tac.technique, status, devID, host, platform}
		for c, f := range CrowdStrikeSchema {
			switch f.Type {
			case column.DateTime:
				t.Cols[c].AppendInt(ts)
			case column.Long:
				t.Cols[c].AppendInt(sev)
			default:
				t.Cols[c].AppendString(vals[c])
			}
		}
		t.N++
	}
	return NewMemTable(connector.TableInfo{Name: "CrowdStrikeDetections", Schema: CrowdStrikeSchema,
		Key: []connector.OrderKey{{Column: "timestamp", Desc: true}, {Column: "detection_id"}}}, t)
}

// SigninSchema is a Sentinel SigninLogs row (a subset of Entra ID's sign-in log columns).
var SigninSchema = column.Schema{
	{Name: "Id", Type: column.String},
	{Name: "TimeGenerated", Type: column.DateTime},
	{Name: "UserPrincipalName", Type: column.String},
	{Name: "AppDisplayName", Type: column.String},
	{Name: "IPAddress", Type: column.String},
	{Name: "Location", Type: column.String},
	{Name: "ResultType", Type: column.String},
	{Name: "RiskLevelDuringSignIn", Type: column.String},
	{Name: "ConditionalAccessStatus", Type: column.String},
}

// SigninLogs generates n Sentinel sign-ins over the same users.
func SigninLogs(n, users int, skew float64, end time.Time, span time.Duration, seed uint64) *MemTable {
	rng := rand.New(rand.NewPCG(seed, 0x51))
	z := newZipf(rng, skew, users)
	t := column.NewTable(SigninSchema)
	apps := []string{"Microsoft Teams", "Office 365 Exchange Online", "Azure Portal", "Salesforce", "GitHub Enterprise"}
	for i := 0; i < n; i++ {
		u := int(z.Uint64())
		h := mix(seed ^ uint64(i)*0xbf58476d1ce4e5b9)
		result, risk, ca := "0", "none", "success"
		if unit(h) < 0.07 {
			result, ca = []string{"50126", "50074", "53003"}[h%3], "failure"
		}
		if unit(mix(h)) < 0.03 {
			risk = []string{"low", "medium", "high"}[(h>>5)%3]
		}
		geo := countries[mix(uint64(u)*0x2545f4914f6cdd1d)%uint64(len(countries))]
		ts := end.Add(-time.Duration(unit(mix(h^1)) * float64(span))).UnixNano()
		vals := []string{fmt.Sprintf("%016x-%d", mix(h), i), "", Login(u), apps[(h>>9)%uint64(len(apps))],
			fmt.Sprintf("%d.%d.%d.%d", 20+(h>>12)%200, (h>>20)&0xff, (h>>28)&0xff, 1+(h>>36)%254), geo.country, result, risk, ca}
		for c, f := range SigninSchema {
			if f.Type == column.DateTime {
				t.Cols[c].AppendInt(ts)
			} else {
				t.Cols[c].AppendString(vals[c])
			}
		}
		t.N++
	}
	return NewMemTable(connector.TableInfo{Name: "SigninLogs", Schema: SigninSchema,
		Key: []connector.OrderKey{{Column: "TimeGenerated", Desc: true}, {Column: "Id"}}}, t)
}
