/**
 * `npm run build` (run by `npm pack` and `npm publish` through `prepack`): bundles src/ into dist/cli/ for the
 * installed package, because Node does not strip types under node_modules, and writes config.schema.json from
 * the zod schema. The repository itself never runs dist/: `npm start`, the demo and the tests run src/ directly.
 *
 * A bundle rather than one compiled file per source file (decisions/0001): loading a command's 50-odd modules one
 * by one costs about 70 ms of every run's start, more than the run's own work when nothing changed. The commands
 * stay apart (each `import()` of src/cli/main.ts is a chunk of its own), so `--help` still loads none of them.
 * Dependencies are not bundled, except the few small ones scripts/bundled-packages.ts names (their licences go
 * to dist/THIRD-PARTY-NOTICES.md): npm installs the rest from package.json, with their own licences and updates.
 */
import { spawnSync } from 'node:child_process'
import { readdir, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'rolldown'
import { configJsonSchemaText } from '../src/config/json-schema.ts'
import { BUNDLED_PACKAGES, packageOf } from './bundled-packages.ts'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const dist = path.join(root, 'dist')

// A file removed from src must not live on in the package.
await rm(dist, { recursive: true, force: true })
try {
  await build({
    cwd: root,
    input: { main: path.join(root, 'src/cli/main.ts') },
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
await writeFile(path.join(dist, 'THIRD-PARTY-NOTICES.md'), await thirdPartyNotices())
process.stderr.write(`build: wrote the licences of the ${BUNDLED_PACKAGES.length} bundled packages to dist/THIRD-PARTY-NOTICES.md\n`)
// Regenerated on every build, so the package never ships a schema older than its code.
await writeFile(path.join(root, 'config.schema.json'), configJsonSchemaText())
process.stderr.write('build: wrote config.schema.json from the zod schema\n')

/** Each bundled package's name, version, licence and licence text, as its own package holds them: MIT asks for the notice to travel with the code. */
async function thirdPartyNotices(): Promise<string> {
  const sections: string[] = []
  for (const name of BUNDLED_PACKAGES) {
    const folder = path.join(root, 'node_modules', name)
    const meta = JSON.parse(await readFile(path.join(folder, 'package.json'), 'utf8')) as { version: string; license?: string }
    const file = (await readdir(folder)).find((f) => /^licen[cs]e(\.md|\.txt)?$/i.test(f))
    if (!file) throw new Error(`build: ${name} has no LICENSE file; a bundled package must carry its licence`)
    const text = (await readFile(path.join(folder, file), 'utf8')).trim()
    sections.push(`## ${name} ${meta.version} (${meta.license ?? 'see below'})\n\n\`\`\`text\n${text}\n\`\`\`\n`)
  }
  return (
    '# Third-party notices\n\n' +
    'dist/ bundles these packages with timeline-sheets (scripts/bundled-packages.ts in the repository); ' +
    'every other dependency is installed by npm with its own licence.\n\n' +
    sections.join('\n')
  )
}
