package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"myco/export"
)

// exportSession writes session prefix as Markdown, JSON or one HTML page:
// to out, to stdout when out is "-", else to a file named like the API's
// download in the current folder. It never replaces a file: the file is
// created with O_EXCL, and one that exists is an error that names it. The
// document is read from disk (another process may have it open) and
// redacted as the store writes documents.
func exportSession(e env, profile, prefix, format, out string) error {
	if format == "" {
		fmt.Fprintf(e.stderr, "myco sessions export: which format? --format md, json or html\n\n%s", usage)
		return errUsage
	}
	f, err := export.ParseFormat(format)
	if err != nil {
		fmt.Fprintf(e.stderr, "myco sessions export: %s\n\n%s", err, usage)
		return errUsage
	}
	st, id, err := openSession(e, profile, prefix)
	if err != nil {
		return err
	}
	doc, err := st.sessions.Load(id)
	if err != nil {
		return err
	}
	if doc, err = st.sessions.Redacted(doc); err != nil {
		return err
	}
	data, err := export.Render(doc, f, st.images)
	if err != nil {
		return err
	}
	if out == "-" {
		_, err := e.stdout.Write(data)
		return err
	}
	if out == "" {
		out = export.FileName(doc, f)
	}
	if err := writeNew(out, data); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "exported %s to %s\n", id, out)
	return nil
}

// writeNew writes data to a file that must not exist yet (mode 0600: a
// transcript is as private as the session it comes from). A failed write
// leaves no partial file behind.
func writeNew(path string, data []byte) error {
	file, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s already exists; it is left as it is (choose another file with -o): %w", path, err)
	}
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	_, err = file.Write(data)
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("export to %s: %w", path, err)
	}
	return nil
}
