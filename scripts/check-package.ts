/**
 * `npm run check-package [-- --node <path> …]`: the package as an operator gets it. Packs the tarball (which
 * builds dist/), checks what it carries, installs it globally into a temporary prefix, and runs the installed
 * `timeline-sheets` by name — `--version`, `--help`, an export against the reference server into a local
 * workbook, an export into the Sheets fake and an import of a manager's edit from it, and `doctor` (as that
 * account, and as a reader account) — once for each Node given (default: the Node running this script, the
 * project's Node 24).
 *
 * The installed command starts with `#!/usr/bin/env node`, so it runs on whatever `node` comes first on PATH;
 * each check puts the chosen Node first, so a CI machine whose own `node` is older still tests 22 or 24.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { createManager } from '../counterparts/sheets/manager.ts'
import { startSheetsFake } from '../counterparts/sheets/server.ts'
import { startReferenceServer } from '../counterparts/timeline/server.ts'
import { columnLetters } from '../src/core/columns.ts'
import { createWorkbookSpreadsheet } from '../src/sheets/workbook/backend.ts'
import { BUNDLED_PACKAGES } from './bundled-packages.ts'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const { values } = parseArgs({ options: { node: { type: 'string', multiple: true }, keep: { type: 'boolean', default: false } } })
const nodes = values.node?.length ? values.node.map((n) => path.resolve(n)) : [process.execPath]
const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as { name: string; version: string }

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs a command to its end without blocking this process: the reference server answers from here. */
function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd ?? root, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 600_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

function check(ok: unknown, what: string, detail?: Run): void {
  if (ok) {
    process.stdout.write(`  ok   ${what}\n`)
    return
  }
  process.stdout.write(`  FAIL ${what}\n`)
  if (detail)
    process.stdout.write(`       exit ${detail.code}\n       stdout: ${detail.stdout.trim()}\n       stderr: ${detail.stderr.trim()}\n`)
  failures++
}

let failures = 0
const work = await mkdtemp(path.join(tmpdir(), 'timeline-sheets-package-'))
try {
  process.stdout.write(`Packing ${pkg.name}@${pkg.version} (prepack builds dist/) into ${work}\n`)
  const packed = await run('npm', ['pack', '--json', '--pack-destination', work])
  if (packed.code !== 0) throw new Error(`npm pack failed (exit ${packed.code}):\n${packed.stderr}`)
  // With --json npm writes the prepack script's output to stderr, and only the listing to stdout.
  const [info] = JSON.parse(packed.stdout) as [{ filename: string; files: { path: string }[] }]
  const files = info.files.map((f) => f.path)
  check(
    ['dist/cli/main.js', 'bin/timeline-sheets.js', 'config.schema.json', 'config.example.json', 'dist/THIRD-PARTY-NOTICES.md'].every((f) =>
      files.includes(f),
    ),
    "the tarball holds dist/cli/main.js, the bin, the config schema, the example config and the bundled packages' licences",
  )
  const stray = files.filter((f) => /(^|\/)(test|counterparts|src|bench|scripts)\/|\.test\.|\.ts$|\.xlsx|\.bak$/.test(f))
  check(stray.length === 0, `the tarball holds no sources, tests, counterparts or data${stray.length ? `: ${stray.join(', ')}` : ''}`)
  const tarball = path.join(work, info.filename)

  const prefix = path.join(work, 'prefix')
  process.stdout.write(`Installing ${info.filename} into ${prefix}\n`)
  const installed = await run('npm', ['install', '--global', '--prefix', prefix, '--no-audit', '--no-fund', '--prefer-offline', tarball])
  if (installed.code !== 0) throw new Error(`npm install of the tarball failed (exit ${installed.code}):\n${installed.stderr}`)

  // The bundled packages travel inside dist/ with their licences, and npm installs no second copy of them.
  const installedRoot = path.join(prefix, 'lib', 'node_modules', pkg.name)
  const notices = await readFile(path.join(installedRoot, 'dist', 'THIRD-PARTY-NOTICES.md'), 'utf8')
  const unnamed = BUNDLED_PACKAGES.filter((name) => !notices.includes(`## ${name} `))
  check(
    unnamed.length === 0,
    `dist/THIRD-PARTY-NOTICES.md carries the licence of every bundled package${unnamed.length ? `; not of ${unnamed.join(', ')}` : ''}`,
  )
  const installedTwice = BUNDLED_PACKAGES.filter((name) => existsSync(path.join(installedRoot, 'node_modules', name)))
  check(
    installedTwice.length === 0,
    `npm installed none of the bundled packages again${installedTwice.length ? `; it did ${installedTwice.join(', ')}` : ''}`,
  )

  const server = await startReferenceServer({
    data: { users: 3, days: 27, startDate: '2026-10-15', timeZones: ['Europe/Berlin'], otherTimelines: false },
  })
  const sheets = await startSheetsFake()
  const manager = createManager(sheets.store)
  try {
    for (const [i, node] of nodes.entries()) {
      // Only this Node and the installed command come first on PATH; npm's own bin folder stays after them.
      const nodeBin = path.join(work, `node-${i}`)
      await mkdir(nodeBin)
      await symlink(node, path.join(nodeBin, 'node'))
      const env = { ...process.env, PATH: [nodeBin, path.join(prefix, 'bin'), process.env.PATH].join(path.delimiter) }
      const cli = (args: string[], extra: NodeJS.ProcessEnv = {}, cwd = work) =>
        run('timeline-sheets', args, { env: { ...env, ...extra }, cwd })
      const nodeVersion = (await run('node', ['--version'], { env })).stdout.trim()
      process.stdout.write(`The installed timeline-sheets on Node ${nodeVersion} (${node})\n`)

      const version = await cli(['--version'])
      check(version.code === 0 && version.stdout.trim() === pkg.version, `timeline-sheets --version prints ${pkg.version}`, version)
      const help = await cli(['--help'])
      check(
        help.code === 0 && help.stdout.includes('Usage: timeline-sheets') && help.stdout.includes('export'),
        'timeline-sheets --help',
        help,
      )
      // Without the global install on PATH, so that it is npx's own copy that answers.
      const npxEnv = { ...process.env, PATH: [nodeBin, process.env.PATH].join(path.delimiter) }
      const npx = await run('npm', ['exec', '--yes', '--prefer-offline', '--package', tarball, '--', 'timeline-sheets', '--help'], {
        env: npxEnv,
        cwd: work,
      })
      check(npx.code === 0 && npx.stdout.includes('Usage: timeline-sheets'), 'npx --package <tarball> timeline-sheets --help', npx)

      const folder = path.join(work, `export-${i}`)
      await mkdir(folder)
      const config = path.join(folder, 'timeline-sheets.json')
      await writeFile(
        config,
        JSON.stringify({
          timeline: { auth: { mode: 'password', baseUrl: server.url, username: server.credentials.transfer!.username } },
          stateDir: 'state',
          targets: [
            { name: 'team', spreadsheet: { kind: 'workbook', path: 'team.xlsx' }, timeZone: 'Europe/Berlin', window: { days: 21 } },
          ],
        }),
      )
      const password = { TIMELINE_PASSWORD: server.credentials.transfer!.password }
      const exported = await cli(['export', '--config', config, '--now', '2026-11-10T11:00:00Z', '--json'], password, folder)
      type Summary = { result: string; counts: { created: number } }
      const summary = exported.code === 0 ? (JSON.parse(exported.stdout) as { runs: Summary[] }).runs[0] : undefined
      check(
        summary?.result === 'success' && summary.counts.created > 0,
        `export into a workbook: ${summary?.counts.created ?? 0} rows`,
        exported,
      )
      const sheet = await createWorkbookSpreadsheet({ path: path.join(folder, 'team.xlsx') }).read(['Activities'])
      check(sheet.tabs['Activities']?.rows.length === summary?.counts.created, 'the workbook holds the rows the export reported')

      // doctor after that export: every check passes (or warns) and it exits 0; a reader account exits 6.
      type DoctorJson = { checks: { name: string; status: string }[]; exitCode: number }
      const doctor = await cli(['doctor', '--config', config, '--now', '2026-11-10T11:00:00Z', '--json'], password, folder)
      const report = doctor.code === 0 ? (JSON.parse(doctor.stdout) as DoctorJson) : undefined
      const failed = report?.checks.filter((c) => c.status === 'fail' || c.status === 'skip').map((c) => c.name) ?? []
      check(
        report !== undefined && report.exitCode === 0 && report.checks.length > 0 && failed.length === 0,
        `timeline-sheets doctor: ${report?.checks.length ?? 0} checks, none failed${failed.length ? ` (failed: ${failed.join(', ')})` : ''}`,
        doctor,
      )
      // The Google path of the installed command (the Sheets backend in the bundle, googleapis from npm): an export
      // into the Sheets fake on loopback, then an import of a manager's edit back to the server.
      const spreadsheetId = manager.createSpreadsheet({ title: `package check ${i}` })
      const googleConfig = path.join(folder, 'google.json')
      await writeFile(
        googleConfig,
        JSON.stringify({
          timeline: { auth: { mode: 'password', baseUrl: server.url, username: server.credentials.transfer!.username } },
          google: { auth: { mode: 'static-token', tokenEnv: 'CHECK_GOOGLE_TOKEN' }, rootUrl: sheets.rootUrl },
          stateDir: 'google-state',
          targets: [{ name: 'team', spreadsheet: { kind: 'google', spreadsheetId }, timeZone: 'Europe/Berlin', window: { days: 21 } }],
        }),
      )
      const googleEnv = { ...password, CHECK_GOOGLE_TOKEN: sheets.staticToken }
      const intoGoogle = await cli(['export', '--config', googleConfig, '--now', '2026-11-10T11:00:00Z', '--json'], googleEnv, folder)
      const googleSummary = intoGoogle.code === 0 ? (JSON.parse(intoGoogle.stdout) as { runs: Summary[] }).runs[0] : undefined
      const tab = manager.readTab(spreadsheetId, 'Activities')
      check(
        googleSummary?.result === 'success' && googleSummary.counts.created > 0 && tab.length === googleSummary.counts.created + 1,
        `export into a Google spreadsheet (the Sheets fake): ${googleSummary?.counts.created ?? 0} rows, ${Math.max(tab.length - 1, 0)} in the tab`,
        intoGoogle,
      )
      const notes = tab[0]?.indexOf('Notes') ?? -1
      if (notes >= 0) manager.editCell(spreadsheetId, 'Activities', `${columnLetters(notes)}2`, 'checked by the package check')
      const fromGoogle = await cli(
        ['import', '--yes', '--config', googleConfig, '--now', '2026-11-10T11:05:00Z', '--json'],
        googleEnv,
        folder,
      )
      type ImportJson = { runs: { result: string; counts: { updated: number } }[] }
      const imported = fromGoogle.code === 0 ? (JSON.parse(fromGoogle.stdout) as ImportJson).runs[0] : undefined
      const onServer = server.credentials.users.some((u) =>
        server.store.activities(u.tagsTimelineKey!).some((a) => a.notes === 'checked by the package check'),
      )
      check(
        notes >= 0 && imported?.result === 'success' && imported.counts.updated === 1 && onServer,
        "import from that Google spreadsheet: a manager's edit is sent to the server",
        fromGoogle,
      )

      const readerConfig = path.join(folder, 'reader.json')
      const reader = server.credentials.reader!
      await writeFile(
        readerConfig,
        (await readFile(config, 'utf8')).replace(JSON.stringify(server.credentials.transfer!.username), JSON.stringify(reader.username)),
      )
      const refused = await cli(['doctor', '--config', readerConfig, '--json'], { TIMELINE_PASSWORD: reader.password }, folder)
      const refusedReport = refused.stdout ? (JSON.parse(refused.stdout) as DoctorJson) : undefined
      check(
        refused.code === 6 && refusedReport?.checks.some((c) => c.name === 'Content editor (getAll)' && c.status === 'fail'),
        'timeline-sheets doctor as a reader account: exit 6, the Content editor check fails',
        refused,
      )
    }
  } finally {
    await server.close()
    await sheets.close()
  }
} finally {
  if (values.keep) process.stdout.write(`Kept ${work}\n`)
  else await rm(work, { recursive: true, force: true })
}

if (failures > 0) {
  process.stdout.write(`${failures} package check(s) failed.\n`)
  process.exit(1)
}
process.stdout.write('The packed package installs and runs.\n')
