/**
 * vitest's globalSetup: the e2e runs start the command that ships, bin/timeline-sheets.js over the bundle
 * scripts/bundle.ts makes of src/, not the sources through Node's type stripping. Each of the suite's several
 * hundred CLI processes then loads a few chunks instead of about 200 modules (decisions/0028).
 *
 * The bundle is built before the first test file starts, into a folder named after the hash of everything it is
 * made of (src/, the build scripts and this file, bin/, package.json and the lockfile), so a bundle of other
 * sources can never be the one a run tests; an unchanged tree reuses the folder. In watch mode every rerun checks
 * the hash again.
 * A run with TIMELINE_SHEETS_E2E_CLI already set (check-package: the installed package) keeps that entry.
 */
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { cp, mkdir, readdir, readFile, rename, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { TestProject } from 'vitest/node'
import { CLI_ENV } from './cli.ts'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

/** What the bundle is made of, besides src/ (the dependencies it inlines come from the lockfile's versions). */
const INPUTS = [
  'package.json',
  'package-lock.json',
  'bin/timeline-sheets.js',
  'scripts/bundle.ts',
  'scripts/bundled-packages.ts',
  'test/e2e/bundle-setup.ts',
]
/** Bundles of this checkout unused for this long are removed when another is built. */
const UNUSED_MS = 3_600_000
const COMPLETE = '.complete'

/** All bundles of this checkout live in folders beginning with this (other checkouts have their own). */
function prefix(): string {
  return path.join(tmpdir(), `timeline-sheets-e2e-${createHash('sha256').update(ROOT).digest('hex').slice(0, 8)}-`)
}

async function sourceHash(): Promise<string> {
  const hash = createHash('sha256')
  const src = path.join(ROOT, 'src')
  const files = (await readdir(src, { recursive: true, withFileTypes: true }))
    .filter((d) => d.isFile())
    .map((d) => path.relative(ROOT, path.join(d.parentPath, d.name)))
  for (const file of [...files.sort(), ...INPUTS]) {
    hash.update(`${file}\0`)
    hash.update(await readFile(path.join(ROOT, file)))
    hash.update('\0')
  }
  return hash.digest('hex').slice(0, 16)
}

/**
 * The installed package's shape: bin/, dist/cli/ and package.json side by side, and node_modules reaching the
 * checkout's (the dependencies npm would install beside it). Returns the bin's path.
 */
async function bundleFor(hash: string): Promise<string> {
  const folder = `${prefix()}${hash}`
  const bin = path.join(folder, 'bin', 'timeline-sheets.js')
  if (existsSync(path.join(folder, COMPLETE))) {
    const now = new Date()
    await utimes(folder, now, now)
    return bin
  }
  const building = `${folder}.building-${process.pid}`
  await rm(building, { recursive: true, force: true })
  await mkdir(path.join(building, 'bin'), { recursive: true })
  await cp(path.join(ROOT, 'package.json'), path.join(building, 'package.json'))
  await cp(path.join(ROOT, 'bin', 'timeline-sheets.js'), path.join(building, 'bin', 'timeline-sheets.js'))
  // A junction on Windows, which needs no privilege; elsewhere the type is ignored.
  await symlink(path.join(ROOT, 'node_modules'), path.join(building, 'node_modules'), 'junction')
  // Loaded only to build: an unchanged tree costs a run the hash alone, not rolldown's start.
  const { bundleCli } = await import('../../scripts/bundle.ts')
  await bundleCli(path.join(building, 'dist'))
  await writeFile(path.join(building, COMPLETE), `${hash}\n`)
  try {
    await rename(building, folder)
  } catch (error) {
    // Another run of this checkout built the same sources first: its folder is as good as this one.
    if (!existsSync(path.join(folder, COMPLETE))) throw error
    await rm(building, { recursive: true, force: true })
  }
  await removeUnused(folder)
  return bin
}

async function removeUnused(current: string): Promise<void> {
  const base = path.basename(prefix())
  for (const name of await readdir(tmpdir())) {
    const folder = path.join(tmpdir(), name)
    if (!name.startsWith(base) || folder === current) continue
    const { mtimeMs } = await stat(folder).catch(() => ({ mtimeMs: Date.now() }))
    if (Date.now() - mtimeMs > UNUSED_MS) await rm(folder, { recursive: true, force: true })
  }
}

async function useFreshBundle(): Promise<void> {
  process.env[CLI_ENV] = await bundleFor(await sourceHash())
}

export default async function setup(project: TestProject): Promise<void> {
  if (process.env[CLI_ENV]) return
  await useFreshBundle()
  project.onTestsRerun(useFreshBundle)
}
