// compose-check loads compose files the way `docker compose config` does, with compose-go (the
// library Docker Compose is built on): each file is validated against the Compose Specification's
// JSON schema, then interpolated and normalised. It prints "<project>: N services" and exits 0, or
// prints the errors and exits 1. Usage: compose-check <compose file>...
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/compose-spec/compose-go/v2/cli"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: compose-check <compose file>...")
		os.Exit(2)
	}
	if err := check(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func check(files []string) error {
	options, err := cli.NewProjectOptions(files, cli.WithOsEnv, cli.WithDotEnv)
	if err != nil {
		return err
	}
	project, err := options.LoadProject(context.Background())
	if err != nil {
		return err
	}
	fmt.Printf("%s: %d services\n", project.Name, len(project.Services))
	return nil
}
