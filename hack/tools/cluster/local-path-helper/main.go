// Command local-path-helper creates (-a create) or removes (-a delete) the directory of one
// local-path volume, as the provisioner's default shell scripts do: mkdir -m 0777 -p, rm -rf.
// The provisioner passes -p <dir> -s <bytes> -m <Filesystem|Block> -a <create|delete>.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	dir := flag.String("p", "", "the volume's directory")
	flag.String("s", "0", "the requested size in bytes (not enforced)")
	mode := flag.String("m", "Filesystem", "the volume mode")
	action := flag.String("a", "", "create or delete")
	flag.Parse()
	if err := run(*dir, *mode, *action); err != nil {
		fmt.Fprintln(os.Stderr, "local-path-helper:", err)
		os.Exit(1)
	}
}

func run(dir, mode, action string) error {
	if !filepath.IsAbs(dir) || filepath.Clean(dir) == "/" {
		return fmt.Errorf("refusing directory %q: an absolute path below / is required", dir)
	}
	if mode != "Filesystem" {
		return fmt.Errorf("volume mode %q is not supported, only Filesystem", mode)
	}
	switch action {
	case "create":
		if err := os.MkdirAll(dir, 0o777); err != nil {
			return err
		}
		// MkdirAll applies the umask; pods of any user write there, as with mkdir -m 0777.
		return os.Chmod(dir, 0o777)
	case "delete":
		return os.RemoveAll(dir)
	default:
		return fmt.Errorf("unknown action %q (create or delete)", action)
	}
}
