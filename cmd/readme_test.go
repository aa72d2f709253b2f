package cmd_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The examples of README.md and docs/*.md run as written.
//
// Convention: only code blocks fenced with ```sh are executed (plain ```
// blocks are illustrations with paths that need a real broker). Inside a
// ```sh block:
//   - a command is a line starting with "kseg ", "go run . ", or the same
//     after a "$ " prompt; "kseg" and "go run ." both run kseg in
//     process (cmd.Execute). "A && B" runs A then B. Pipes and redirections are not
//     supported (the test fails on them, so they are not written in ```sh
//     blocks). Other lines before the first prompt (such as "go test ./...")
//     are not run.
//   - a trailing "# exit N" comment (optionally followed by a note, "# exit
//     2: why") gives the expected exit status (default 0); any other
//     trailing "# ..." comment is ignored.
//   - in blocks with "$ " prompts, the lines after a command up to the next
//     prompt are its expected output: each must appear in stdout+stderr,
//     compared with runs of spaces collapsed; "..." in a line matches
//     anything, and a trailing "(exit N)" on an output line sets the
//     expected status like "# exit N".
//
// Commands run in a fresh temporary directory whose "testdata" is a
// symlink to the repository's, so relative paths work and outputs
// (seed.html, produce directories) do not land in the clone.
func TestREADMEExamples(t *testing.T) {
	root := repoRoot(t)
	cmds := readmeCommands(t, filepath.Join(root, "README.md"))
	if len(cmds) < 5 {
		t.Fatalf("found %d README commands in ```sh blocks; the convention is broken", len(cmds))
	}
	runExamples(t, root, "README.md", cmds)
}

// The docs/*.md pages follow the same convention; each page runs in a
// temporary directory of its own.
func TestREADMEDocsExamples(t *testing.T) {
	root := repoRoot(t)
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, page := range pages {
		name := "docs/" + filepath.Base(page)
		cmds := readmeCommands(t, page)
		if len(cmds) == 0 {
			continue
		}
		t.Run(filepath.Base(page), func(t *testing.T) { runExamples(t, root, name, cmds) })
	}
}

func runExamples(t *testing.T, root, file string, cmds []readmeCmd) {
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(root, "testdata"), filepath.Join(dir, "testdata")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, c := range cmds {
		t.Run(fmt.Sprintf("line%d", c.line), func(t *testing.T) {
			var all bytes.Buffer
			code := 0
			for _, part := range strings.Split(c.text, " && ") {
				if strings.ContainsAny(part, "|<>") {
					t.Fatalf("%s:%d: pipes and redirections are not run: %q", file, c.line, c.text)
				}
				args, err := shellSplit(part)
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case len(args) > 0 && args[0] == "kseg":
					args = args[1:]
				case len(args) > 2 && args[0] == "go" && args[1] == "run" && args[2] == ".":
					args = args[3:]
				default:
					t.Fatalf("%s:%d: not a kseg command: %q", file, c.line, part)
				}
				var stdout, stderr []byte
				stdout, stderr, code = execute(t, args...)
				all.Write(stdout)
				if len(stdout) > 0 && stdout[len(stdout)-1] != '\n' {
					all.WriteByte('\n') // keep stderr's first line a line of its own
				}
				all.Write(stderr)
				if code != 0 {
					break
				}
			}
			if code != c.exit {
				t.Errorf("%s:%d: %s: exit %d, the page says %d\n%s", file, c.line, c.text, code, c.exit, clip(all.String()))
			}
			got := squeeze(all.String())
			for _, w := range c.output {
				if !matchLine(got, squeeze(w)) {
					t.Errorf("%s:%d: %s: output lacks %q\n%s", file, c.line, c.text, w, clip(all.String()))
				}
			}
		})
	}
}

type readmeCmd struct {
	line   int
	text   string
	exit   int
	output []string
}

var (
	exitComment = regexp.MustCompile(`\s+#\s*exit (\d+)\b.*$`)
	anyComment  = regexp.MustCompile(`\s+#.*$`)
	exitNote    = regexp.MustCompile(`\s*\(exit (\d+)\)\s*$`)
)

func readmeCommands(t *testing.T, path string) []readmeCmd {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []readmeCmd
	inSh, inOther, prompts := false, false, false
	var cur *readmeCmd
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trim := strings.TrimSpace(line)
		if strings.HasPrefix(trim, "```") {
			switch {
			case inSh || inOther:
				inSh, inOther, cur = false, false, nil
			case trim == "```sh":
				inSh, prompts = true, false
			default:
				inOther = true
			}
			continue
		}
		if !inSh {
			continue
		}
		text, isPrompt := strings.CutPrefix(trim, "$ ")
		prompts = prompts || isPrompt
		isCmd := strings.HasPrefix(text, "kseg ") || strings.HasPrefix(text, "go run . ")
		if isPrompt || (!prompts && isCmd) {
			cur = nil
			if !isCmd {
				continue
			}
			c := readmeCmd{line: n}
			if m := exitComment.FindStringSubmatch(text); m != nil {
				c.exit, _ = strconv.Atoi(m[1])
			}
			c.text = anyComment.ReplaceAllString(text, "")
			out = append(out, c)
			cur = &out[len(out)-1]
			continue
		}
		if cur != nil && prompts && trim != "" {
			if m := exitNote.FindStringSubmatch(trim); m != nil {
				cur.exit, _ = strconv.Atoi(m[1])
				trim = exitNote.ReplaceAllString(trim, "")
			}
			cur.output = append(cur.output, trim)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

var spaces = regexp.MustCompile(`[ \t]+`)

func squeeze(s string) string { return spaces.ReplaceAllString(s, " ") }

// matchLine reports whether some line of got holds the pieces of want
// (split at "...") in order.
func matchLine(got, want string) bool {
	pieces := strings.Split(want, "...")
	for _, line := range strings.Split(got, "\n") {
		rest, ok := line, true
		for _, p := range pieces {
			p = strings.TrimSpace(p)
			i := strings.Index(rest, p)
			if i < 0 {
				ok = false
				break
			}
			rest = rest[i+len(p):]
		}
		if ok {
			return true
		}
	}
	return false
}

func clip(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "..."
	}
	return s
}
