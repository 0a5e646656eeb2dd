/**
 * A real package: what `npm pack` puts in the tarball, what the installed command needs at run time,
 * and the installed command's check of the Node it runs on. `npm run check-package` (run by CI) packs,
 * installs and runs the package itself.
 */
import { spawn } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'
import { builtinModules } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { BUNDLED_PACKAGES } from '../../scripts/bundled-packages.ts'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as {
  version: string
  license: string
  engines: { node: string }
  bin: Record<string, string>
  files: string[]
  dependencies: Record<string, string>
  devDependencies: Record<string, string>
}

function run(command: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

async function sourceFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true, recursive: true })
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
    .map((e) => path.join(e.parentPath, e.name))
}

describe('the package', () => {
  it('lists every package src/ imports as a dependency, so an installed copy has it, or bundles it; and nothing else', async () => {
    const imported = new Set<string>()
    for (const file of await sourceFiles(path.join(root, 'src'))) {
      const text = await readFile(file, 'utf8')
      for (const match of text.matchAll(/(?:^import|^export|\bimport\()\s*(?:[^'"]*?\bfrom\s*)?['"]([^'"]+)['"]/gm)) {
        const specifier = match[1]!
        if (specifier.startsWith('.') || specifier.startsWith('node:') || builtinModules.includes(specifier)) continue
        if (/^import type\b/.test(match[0])) continue
        const parts = specifier.split('/')
        imported.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!)
      }
    }
    expect(imported.size).toBeGreaterThan(5)
    const bundled = new Set<string>(BUNDLED_PACKAGES)
    const missing = [...imported].filter((name) => !(name in pkg.dependencies) && !bundled.has(name))
    expect(missing).toEqual([])
    // And the other way: no dependency is shipped that src/ never imports (date-fns was: decisions/0006).
    const unused = Object.keys(pkg.dependencies).filter((name) => !imported.has(name))
    expect(unused).toEqual([])
    // A bundled package is in dist/ already: npm must not install a second copy for nothing, but the repository
    // (tests, npm start, the build) needs it, so it is a devDependency that src/ imports.
    for (const name of bundled) {
      expect(pkg.dependencies, name).not.toHaveProperty([name])
      expect(pkg.devDependencies, name).toHaveProperty([name])
      expect(imported.has(name), `${name} is bundled but src/ does not import it`).toBe(true)
    }
  })

  it('packs the compiled CLI, the bin, the example config and the README, and no sources, tests or data', async () => {
    expect(pkg.files).toEqual(expect.arrayContaining(['dist/', 'bin/']))
    expect(pkg.bin['timeline-sheets']).toBe('bin/timeline-sheets.js')
    // --ignore-scripts: the listing, without building dist/ first (check-package builds and installs it).
    const packed = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'])
    expect(packed.code, packed.stderr).toBe(0)
    const files = (JSON.parse(packed.stdout) as [{ files: { path: string }[] }])[0].files.map((f) => f.path)
    expect(files).toEqual(
      expect.arrayContaining([
        'bin/timeline-sheets.js',
        'package.json',
        'README.md',
        'LICENSE',
        'config.example.json',
        'config.schema.json',
      ]),
    )
    const stray = files.filter((f) => /(^|\/)(test|counterparts|src|bench|scripts|decisions|demo)\/|\.ts$|\.xlsx$|\.bak$/.test(f))
    expect(stray).toEqual([])
  }, 60_000)

  it('carries the MIT licence its package.json names', async () => {
    expect(pkg.license).toBe('MIT')
    const licence = await readFile(path.join(root, 'LICENSE'), 'utf8')
    expect(licence.split('\n')[0]).toBe('MIT License')
    expect(licence).toContain('Permission is hereby granted, free of charge')
  })

  it('says in the README which Node the installed command needs, as engines does', async () => {
    const minimum = /^>=(\d+\.\d+)$/.exec(pkg.engines.node)?.[1]
    expect(minimum).toBeDefined()
    const readme = await readFile(path.join(root, 'README.md'), 'utf8')
    expect(readme).toContain(`Node ${minimum} or newer`)
  })

  describe('the installed command checks the Node it runs on against engines', () => {
    const bin = path.join(root, pkg.bin['timeline-sheets']!)
    const on = (version: string) =>
      run(process.execPath, [
        '--import',
        `data:text/javascript,Object.defineProperty(process.versions,"node",{value:"${version}"})`,
        bin,
        '--version',
      ])

    it.each(['20.19.0', '22.11.0', '18.20.4'])(
      'refuses Node %s with what it needs and exit code 2',
      async (version) => {
        const refused = await on(version)
        expect(refused.code).toBe(2)
        expect(refused.stdout).toBe('')
        expect(refused.stderr).toContain(
          `timeline-sheets needs Node 22.12.0 or newer (engines.node "${pkg.engines.node}"); this is Node ${version}`,
        )
      },
      60_000,
    )

    it.each(['22.12.0', '24.0.0'])(
      'goes on under Node %s',
      async (version) => {
        const accepted = await on(version)
        expect(accepted.stderr).not.toContain('needs Node')
      },
      60_000,
    )
  })
})
