/**
 * `npm run build` (run by `npm pack` and `npm publish` through `prepack`): bundles src/ into dist/cli/ for the
 * installed package (scripts/bundle.ts), because Node does not strip types under node_modules, and writes
 * config.schema.json from the zod schema. `npm start` and the demo run src/ directly; the test suite runs a bundle
 * of its own, built the same way when it starts.
 */
import { spawnSync } from 'node:child_process'
import { readdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { configJsonSchemaText } from '../src/config/json-schema.ts'
import { bundleCli, ROOT as root } from './bundle.ts'
import { BUNDLED_PACKAGES } from './bundled-packages.ts'

const dist = path.join(root, 'dist')

try {
  await bundleCli(dist)
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
