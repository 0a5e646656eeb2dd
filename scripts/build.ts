/**
 * `npm run build` (run by `npm pack` and `npm publish` through `prepack`): bundles src/ into dist/cli/ for the
 * installed package, because Node does not strip types under node_modules, and writes config.schema.json from
 * the zod schema. The repository itself never runs dist/: `npm start`, the demo and the tests run src/ directly.
 *
 * A bundle rather than one compiled file per source file (decisions/0001): loading a command's 50-odd modules one
 * by one was about 70 ms of every run's start, more than the run's own work when nothing changed. The commands
 * stay apart (each `import()` of src/cli/main.ts is a chunk of its own), so `--help` still loads none of them.
 * Dependencies are not bundled: npm installs them from package.json as before, with their own licences and
 * updates, and the bundle holds only this project's code.
 */
import { spawnSync } from 'node:child_process'
import { readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'rolldown'
import { configJsonSchemaText } from '../src/config/json-schema.ts'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const dist = path.join(root, 'dist')

// A file removed from src must not live on in the package.
await rm(dist, { recursive: true, force: true })
try {
  await build({
    cwd: root,
    input: { main: path.join(root, 'src/cli/main.ts') },
    platform: 'node',
    // Bare specifiers (packages and node: built-ins) stay imports; only relative paths are this project's code.
    external: (id) => !id.startsWith('.') && !path.isAbsolute(id),
    output: {
      dir: path.join(dist, 'cli'),
      format: 'esm',
      // package.json is two folders up from every chunk, as from src/config/ (src/config/package-version.ts).
      entryFileNames: '[name].js',
      chunkFileNames: '[name]-[hash].js',
    },
    logLevel: 'warn',
  })
} catch (error) {
  process.stderr.write(`build: bundling src/ failed: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
}

// The installed command, run once: a chunk that resolves a path the bundle moved fails here, not on a user's machine.
const version = spawnSync(process.execPath, [path.join(root, 'bin/timeline-sheets.js'), '--version'], { encoding: 'utf8' })
const { version: wanted } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { version: string }
if (version.status !== 0 || version.stdout.trim() !== wanted) {
  process.stderr.write(
    `build: the bundled command does not start: \`timeline-sheets --version\` exited ${version.status} with "${version.stdout.trim()}" ` +
      `(expected "${wanted}")\n${version.stderr}`,
  )
  process.exit(1)
}
process.stderr.write(`build: bundled src/ into ${path.relative(root, dist)}/cli/ (timeline-sheets ${wanted} starts)\n`)
// Regenerated on every build, so the package never ships a schema older than its code.
await writeFile(path.join(root, 'config.schema.json'), configJsonSchemaText())
process.stderr.write('build: wrote config.schema.json from the zod schema\n')
