/** The version an operator sees with `--version`: the package's own, read where the package keeps it. */
import { readFileSync } from 'node:fs'

/**
 * `package.json` is two folders up from this module both in the repository (src/config/) and in the installed
 * package, whose bundle keeps every chunk in dist/cli/ (scripts/build.ts), so one relative path serves both.
 */
export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
  return pkg.version
}
