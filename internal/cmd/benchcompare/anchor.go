package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// jsonValidCommand is the hidden subcommand that runs the json.Valid anchor in a
// child process, so it is measured (wall, CPU, peak RSS) as the replays are.
const jsonValidCommand = "json-valid"

// oneCoreCommand is the hidden subcommand that runs a command pinned to one core
// (oneCore): "one-core N BIN ARG...".
const oneCoreCommand = "one-core"

// jsonValid is the floor a replay of a folder cannot beat: read every line of every
// file under dir and check that it is valid JSON (json.Valid), on one core. It prints
// what it read.
func jsonValid(dir string, stdout io.Writer) error {
	runtime.GOMAXPROCS(1)
	var files, lines, invalid int
	var size int64
	buf := make([]byte, 0, 1<<20)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		files++
		sc := bufio.NewScanner(f)
		sc.Buffer(buf, 256<<20)
		for sc.Scan() {
			line := sc.Bytes()
			size += int64(len(line)) + 1
			if len(strings.TrimSpace(string(line))) == 0 {
				continue
			}
			lines++
			if !json.Valid(line) {
				invalid++
			}
		}
		if err := sc.Err(); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%d files, %d lines (%d not valid JSON), %d bytes\n", files, lines, invalid, size)
	return err
}

// duckDB returns the node script that runs DuckDB's Node package from the
// repository's interop folder, and whether it is installed.
func duckDB(repo string) (script string, ok bool) {
	script = filepath.Join(repo, "interop", "duckdb.mjs")
	if _, err := os.Stat(filepath.Join(repo, "interop", "node_modules", "@duckdb", "node-api")); err != nil {
		return script, false
	}
	if _, err := os.Stat(script); err != nil {
		return script, false
	}
	return script, true
}

// duckDBArgs are node's arguments for converting every JSONL file under in to one
// Parquet file out with DuckDB (read_json → COPY … TO parquet, zstd), on threads
// threads; lines DuckDB cannot read are skipped (ignore_errors).
func duckDBArgs(script, in, out string, threads int) []string {
	glob := strings.ReplaceAll(filepath.ToSlash(in), "'", "''") + "/**/*.jsonl"
	return []string{script,
		fmt.Sprintf("SET threads=%d", threads),
		fmt.Sprintf("COPY (SELECT * FROM read_json('%s', format='newline_delimited', union_by_name=true, ignore_errors=true, maximum_object_size=268435456)) TO '%s' (FORMAT parquet, COMPRESSION zstd)",
			glob, strings.ReplaceAll(out, "'", "''")),
	}
}
