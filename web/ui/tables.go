package ui

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/joinlab/joinlab/web/runner/protocol"
)

// The user's own tables. A file (picked or dropped) or a paste goes from the browser straight to the
// engine's worker as a Blob (wasm/app posts it beside AddFile's request); the page keeps a handle, the name
// the query uses, and the engine's summary. Nothing here ever holds a table's text, except a small one's
// (protocol.MaxInlineBytes) as the engine sends it back, for share links.

// Table statuses.
const (
	TableLoading = "loading"
	TableReady   = "ready"
	TableFailed  = "failed"
	// TableMissing is a table a share link names but does not carry: its data stayed on the sender's device.
	TableMissing = "missing"
)

// maxTableName bounds a table's name; a query names it after '@'.
const maxTableName = 64

// tableName is what a query can write after '@' (engine/kql's identifiers).
var tableName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// nameFromFile makes a table name from a file name: its base without the extension, every character a name
// cannot hold as '_', led by '_' if it starts with a digit, and numbered if another table has it.
func (s *State) nameFromFile(file string) string {
	name := s.baseName(file)
	taken := name
	for n := 2; s.tableNamed(taken) != nil; n++ {
		taken = fmt.Sprintf("%s%d", name, n)
	}
	return taken
}

// baseName is nameFromFile before numbering.
func (s *State) baseName(file string) string {
	base := strings.TrimSuffix(path.Base(strings.ReplaceAll(file, "\\", "/")), path.Ext(file))
	var b strings.Builder
	for _, r := range base {
		if r < 128 && (r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	name := b.String()
	if name == "" || strings.Trim(name, "_") == "" {
		name = "Table"
	}
	if name[0] >= '0' && name[0] <= '9' {
		name = "_" + name
	}
	if len(name) > maxTableName-4 {
		name = name[:maxTableName-4]
	}
	return name
}

// dropPlaceholder removes the placeholder of a link's table named name, which a table of the user's
// own now replaces.
func (s *State) dropPlaceholder(name string) {
	if t := s.tableNamed(name); t != nil && t.Status == TableMissing {
		s.RemoveTable(t.ID)
	}
}

// missingTables names the link's tables not loaded yet ("" when none).
func (s *State) missingTables() string {
	var names []string
	for _, t := range s.Tables {
		if t.Status == TableMissing {
			names = append(names, "@"+t.Name)
		}
	}
	return strings.Join(names, ", ")
}

// keepOwnTables sets the user's tables aside while a walkthrough's sources take their place.
func (s *State) keepOwnTables() {
	if s.ownTables == nil {
		for _, t := range s.Tables {
			if t.ID > 0 {
				s.ownTables = append(s.ownTables, t)
			}
		}
		if s.ownTables == nil {
			s.ownTables = []Table{}
		}
	}
}

// restoreOwnTables puts the user's tables back after a walkthrough.
func (s *State) restoreOwnTables() {
	if s.ownTables != nil {
		s.Tables, s.ownTables = s.ownTables, nil
	}
}

// formatOf guesses a file's format from its name: .csv is CSV, anything else JSON lines.
func formatOf(file string) string {
	if strings.EqualFold(path.Ext(file), ".csv") {
		return "csv"
	}
	return "jsonl"
}

func (s *State) tableNamed(name string) *Table {
	for i := range s.Tables {
		if s.Tables[i].Name == name {
			return &s.Tables[i]
		}
	}
	return nil
}

func (s *State) tableByID(id int) *Table {
	for i := range s.Tables {
		if id > 0 && s.Tables[i].ID == id {
			return &s.Tables[i]
		}
	}
	return nil
}

// AddFile adds a table for a file of size bytes, named from the file's name, and returns the load request
// the caller posts to the engine with the file's Blob beside it.
func (s *State) AddFile(file string, size int64) protocol.Request {
	s.tableID++
	s.dropPlaceholder(s.baseName(file))
	t := Table{ID: s.tableID, Name: s.nameFromFile(file), Format: formatOf(file), File: file, Size: size, Status: TableLoading}
	s.Tables = append(s.Tables, t)
	s.Dirty = true
	s.saveFragment()
	return protocol.Request{Type: protocol.RequestLoad, Load: &protocol.Load{Table: t.ID, File: file, Format: t.Format, Size: size}}
}

// AddText adds a small table from text that is already in the page (the starting tables, a share link's),
// sending the text along.
func (s *State) AddText(name, format, text string) {
	s.tableID++
	if s.tableNamed(name) != nil || !tableName.MatchString(name) {
		name = s.nameFromFile(name)
	}
	t := Table{ID: s.tableID, Name: name, Format: format, Size: int64(len(text)), Status: TableLoading}
	s.Tables = append(s.Tables, t)
	if s.Env != nil {
		s.Env.Post(protocol.Request{Type: protocol.RequestLoad, Load: &protocol.Load{Table: t.ID, Format: format, Size: t.Size, Data: text}})
	}
}

// RenameTable gives table id a new name, if it is one a query can write and no other table has.
func (s *State) RenameTable(id int, name string) {
	t := s.tableByID(id)
	if t == nil {
		return
	}
	name = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(name), "@"))
	if other := s.tableNamed(name); other != nil && other != t && t.Status != TableMissing && tableName.MatchString(name) {
		s.dropPlaceholder(name)
		t = s.tableByID(id)
	}
	switch other := s.tableNamed(name); {
	case name == t.Name:
		t.NameErr = ""
	case name == "":
		t.NameErr = "A table needs a name; it is still @" + t.Name + "."
	case len(name) > maxTableName || !tableName.MatchString(name):
		t.NameErr = fmt.Sprintf("%q is not a name a query can use after '@' (letters, digits and _, not starting "+
			"with a digit, at most %d); the table is still @%s.", name, maxTableName, t.Name)
	case other != nil:
		t.NameErr = fmt.Sprintf("Another table is already named @%s; this one is still @%s.", name, t.Name)
	default:
		t.Name, t.NameErr = name, ""
		s.saveFragment()
	}
}

// RemoveTable forgets table id, here and in the engine.
func (s *State) RemoveTable(id int) {
	for i := range s.Tables {
		if s.Tables[i].ID == id && id > 0 {
			missing := s.Tables[i].Status == TableMissing
			s.Tables = append(s.Tables[:i], s.Tables[i+1:]...)
			if !missing {
				s.Env.Post(protocol.Request{Type: protocol.RequestDrop, Load: &protocol.Load{Table: id}})
			}
			s.saveFragment()
			return
		}
	}
}

// SetTableFormat has the engine parse table id again in format ("jsonl" or "csv").
func (s *State) SetTableFormat(id int, format string) {
	t := s.tableByID(id)
	if t == nil || (format != "jsonl" && format != "csv") || format == t.Format || t.Status == TableMissing {
		return
	}
	t.Format, t.Status, t.Read, t.Progress, t.Summary, t.Err = format, TableLoading, 0, ProgressFold{}, nil, nil
	s.Env.Post(protocol.Request{Type: protocol.RequestLoad, Load: &protocol.Load{Table: id, File: t.File, Format: format, Size: t.Size}})
}

// applyLoad applies the engine's news of a table's parse.
func (s *State) applyLoad(m protocol.Message) {
	t := s.tableByID(m.Table)
	if t == nil {
		return // removed meanwhile
	}
	switch m.Type {
	case protocol.MessageLoadProgress:
		t.Read = m.Read
		t.Progress.add(float64(m.Read) / float64(t.Size))
	case protocol.MessageLoaded:
		t.Status, t.Summary, t.Err = TableReady, m.Summary, nil
		if m.Summary != nil {
			t.Read, t.Size, t.Data = m.Summary.Bytes, m.Summary.Bytes, m.Summary.Text
		}
		s.saveFragment() // a small table now travels in the link
	case protocol.MessageLoadFailed:
		t.Status, t.Err, t.Summary = TableFailed, m.Error, nil
	}
}

// TablesLoading reports whether the engine is still parsing any table.
func (s *State) TablesLoading() bool {
	for _, t := range s.Tables {
		if t.Status == TableLoading {
			return true
		}
	}
	return false
}

// Download asks the engine for the current run's whole output (or trace) as a file: it runs it again.
func (s *State) Download(format string) {
	if s.lastRun == nil || s.Run == nil || s.Run.Status != StatusDone || s.Downloading != "" {
		return
	}
	s.downloadID++
	s.Downloading, s.DownloadNote, s.DownloadBytes = format, "Preparing the file…", 0
	s.Env.Post(protocol.Request{Type: protocol.RequestDownload, ID: s.downloadID,
		Download: &protocol.Download{Format: format, Run: s.lastRun}})
}

func (s *State) applyDownload(m protocol.Message) {
	if m.ID != s.downloadID {
		return
	}
	s.Downloading = ""
	if m.Error != nil {
		s.DownloadNote = "The download failed: " + m.Error.Message
		return
	}
	s.DownloadBytes = m.Read
	s.DownloadNote = fmt.Sprintf("Saved %s (%s), made on this device.", m.File, bytesText(float64(m.Read)))
}
