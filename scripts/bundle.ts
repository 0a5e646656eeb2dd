/**
 * The bundle of src/ the package ships (dist/cli/), written into any folder: `npm run build` writes it into the
 * repository's dist/, the test suite into a folder of its own (test/e2e/bundle-setup.ts), so the tests run the
 * command that ships and a build for the package never races a test run.
 *
 * A bundle rather than one compiled file per source file (decisions/0001): loading a command's 50-odd modules one
 * by one costs about 70 ms of every run's start, more than the run's own work when nothing changed. The commands
 * stay apart (each `import()` of src/cli/main.ts is a chunk of its own), so `--help` still loads none of them.
 * Dependencies are not bundled, except the few small ones scripts/bundled-packages.ts names (their licences go
 * to dist/THIRD-PARTY-NOTICES.md): npm installs the rest from package.json, with their own licences and updates.
 */
import { rm } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'rolldown'
import { BUNDLED_PACKAGES, packageOf } from './bundled-packages.ts'

/** The repository this script belongs to. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/**
 * Bundles src/cli/main.ts into `<dist>/cli/` (`dist` emptied first, so a file removed from src does not live on).
 * The chunks find package.json two folders up (src/config/package-version.ts) and their dependencies in the
 * node_modules that folder's resolution reaches.
 */
export async function bundleCli(dist: string): Promise<void> {
  await rm(dist, { recursive: true, force: true })
  await build({
    cwd: ROOT,
    input: { main: path.join(ROOT, 'src/cli/main.ts') },
    platform: 'node',
    // Bare specifiers (packages and node: built-ins) stay imports, except the few packages bundled on purpose.
    external: (id) => !id.startsWith('.') && !path.isAbsolute(id) && !(BUNDLED_PACKAGES as readonly string[]).includes(packageOf(id)),
    output: {
      dir: path.join(dist, 'cli'),
      format: 'esm',
      // package.json is two folders up from every chunk, as from src/config/ (src/config/package-version.ts).
      entryFileNames: '[name].js',
      chunkFileNames: '[name]-[hash].js',
      // A bug's stack should name src files: bin/timeline-sheets.js turns the maps on for --verbose runs only (the
      // bug hint asks for one), so other runs never read them. Positions only: src/ itself is not in the package.
      sourcemap: true,
      sourcemapExcludeSources: true,
    },
    logLevel: 'warn',
  })
}
