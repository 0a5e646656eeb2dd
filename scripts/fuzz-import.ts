/**
 * `npm run fuzz -- [--seed N] [--rows N] [--backend workbook|google|both]`:
 * the importer against a sheet full of garbage, through the real CLI.
 *
 * For each backend: starts the reference Timeline server with a generated
 * team, exports it (a local workbook, or a spreadsheet in the Sheets fake),
 * then acts as a careless manager on every column a manager can touch — error
 * values, extreme dates, skipped local times, 50,000-character cells, control
 * characters, formulas, huge numbers, Keys and Bases duplicated, pasted and
 * garbled, Delete ticked on some damaged rows — until the tab holds `--rows`
 * rows, and runs `import --dry-run` and `import --yes` as subprocesses. A
 * column of its own ("Fuzz", which the tool never writes) follows each row
 * through the run.
 *
 * Four figures per backend, each of which must be 0:
 * - exits whose output calls something a bug ("This is a bug…") or shows a stack trace;
 * - invalid rows without a Status after `import --yes` (invalid: the dry run
 *   says so, or the row holds something no row may hold, by construction);
 * - server writes made from invalid rows (every change the reference server
 *   recorded, traced to the rows holding that Key), a deletion from a ticked
 *   row that holds a cell the tool cannot read among them;
 * - rows whose content was replaced (an invalid row whose manager cells
 *   changed, a row that vanished without Delete ticked, a row whose Notes or
 *   Tags now say something else than what it asked for, or whose Key changed).
 * Two more, with two people's week approved before the garbling (`fuzz-approvals.ts`): server writes into an
 * approved week, and rows there holding an edit without a Status naming the approval.
 * And in a workbook a seventh: hyperlinks, notes and merged cells the manager put
 * on rows that end up on another row (`fuzz-cell-parts.ts`; the Sheets fake
 * models none of them, so Google is not checked for it).
 * Seeded: the same seed fills the same sheet.
 *
 * The rows are garbled in `fuzz-rows.ts`, the sheet read and filled in `fuzz-sheet.ts`, the run judged in
 * `fuzz-judge.ts` and printed by `fuzz-report.ts`; this file reads the arguments and runs each backend.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { startSheetsFake } from '../counterparts/sheets/server.ts'
import { startReferenceServer } from '../counterparts/timeline/server.ts'
import { CLI_ENV } from '../test/e2e/cli.ts'
import { approvedOf, judgeApproved, tickApprovals } from './fuzz-approvals.ts'
import { chooseCellParts } from './fuzz-cell-parts.ts'
import { changeSeqs, measure, type Run } from './fuzz-judge.ts'
import { figureTotal, reportText, type Figures } from './fuzz-report.ts'
import { FUZZ, garble, mulberry32, type Backend } from './fuzz-rows.ts'
import { openSheet } from './fuzz-sheet.ts'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
// Under vitest (test/e2e/fuzz-import.e2e.test.ts) the bundle the suite tests; from the command line the sources.
const CLI = process.env[CLI_ENV] || path.join(root, 'src/cli/main.ts')
const NOW = '2026-11-10T11:00:00Z'
const TODAY = '2026-11-10'
const ZONE = 'Europe/Berlin'
const TOKEN = 'fuzz-static-token'
const TOKEN_ENV = 'FUZZ_GOOGLE_TOKEN'

const { values: args } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    rows: { type: 'string', default: '10000' },
    backend: { type: 'string', default: 'both' },
    keep: { type: 'boolean', default: false },
  },
})
const seed = Number(args.seed)
const rowCount = Number(args.rows)
const backends: Backend[] = args.backend === 'both' ? ['workbook', 'google'] : [args.backend as Backend]
if (!Number.isInteger(seed) || !Number.isInteger(rowCount) || rowCount < 1 || !backends.every((b) => b === 'workbook' || b === 'google')) {
  process.stderr.write('usage: npm run fuzz -- [--seed N] [--rows N] [--backend workbook|google|both] [--keep]\n')
  process.exit(2)
}

let failed = false
for (const backend of backends) {
  const started = Date.now()
  const figures = await fuzzOnce(backend)
  failed ||= figureTotal(figures) > 0
  process.stdout.write(reportText(backend, seed, rowCount, Math.round((Date.now() - started) / 1000), figures))
}
process.exitCode = failed ? 1 : 0

async function fuzzOnce(backend: Backend): Promise<Figures> {
  const random = mulberry32(seed)
  const server = await startReferenceServer({
    data: { users: 6, days: 35, startDate: '2026-10-07', timeZones: [ZONE, 'America/New_York'], otherTimelines: false, seed },
  })
  const fake = backend === 'google' ? await startSheetsFake({ quota: false, staticToken: TOKEN }) : undefined
  const folder = await mkdtemp(path.join(tmpdir(), `ts-fuzz-${backend}-`))
  try {
    const sheet = await openSheet(backend, folder, fake)
    const configFile = path.join(folder, 'timeline-sheets.json')
    await writeFile(
      configFile,
      JSON.stringify({
        timeline: {
          auth: { mode: 'password', baseUrl: server.url, username: server.credentials.transfer!.username },
          pace: { concurrency: 8, requestsPerInterval: 100_000, intervalMs: 1000 },
        },
        ...(fake ? { google: { auth: { mode: 'static-token', tokenEnv: TOKEN_ENV }, rootUrl: fake.rootUrl, quotaWindowMs: 1000 } } : {}),
        stateDir: 'state',
        targets: [
          { name: 'team', spreadsheet: sheet.spec, timeZone: ZONE, window: { days: 35, lookBackDays: 7 }, approvals: { period: 'week' } },
        ],
      }),
    )
    const env = { TIMELINE_PASSWORD: server.credentials.transfer!.password, [TOKEN_ENV]: TOKEN }
    const exported = await cli(['export', '--config', configFile, '--now', NOW], env)
    if (exported.code !== 0) throw new Error(`export exited ${exported.code}: ${exported.stderr}`)
    // Two people's week approved in the sheet: a sync fills the Approvals rows, the next takes the ticks.
    const approvers = server.credentials.users.slice(0, 2).map((u) => u.username)
    for (const step of ['rows', 'ticks'] as const) {
      if (step === 'ticks') await tickApprovals(backend, folder, fake, sheet.spec['spreadsheetId'] as string | undefined, approvers)
      const synced = await cli(['sync', '--config', configFile, '--now', NOW], env)
      if (synced.code !== 0) throw new Error(`the sync that takes the ${step} exited ${synced.code}: ${synced.stderr}`)
    }
    const approved = await approvedOf(folder, approvers)

    const header = await sheet.header()
    const exportedRows = await sheet.rows(header)
    const fuzzRows = garble(exportedRows, server, random, backend, rowCount)
    const cellParts =
      backend === 'workbook'
        ? chooseCellParts(
            fuzzRows.map((row) => row.id),
            header.length,
            mulberry32(seed ^ 0x5bd1e995),
          )
        : undefined
    await sheet.fill([...header, FUZZ], fuzzRows, cellParts)

    const layout = [...header, FUZZ]
    const before = await sheet.rows(layout)
    const seqBefore = changeSeqs(server)
    const dry = await cli(['import', '--config', configFile, '--now', NOW, '--dry-run', '--json'], env)
    const applied = await cli(
      ['import', '--config', configFile, '--now', NOW, '--yes', '--json', '--force', '--max-delete', '1000000'],
      env,
    )
    const after = await sheet.rows(layout)
    const misplaced = cellParts === undefined ? undefined : await sheet.misplaced(layout, cellParts)
    const figures = measure({ server, seqBefore, fuzzRows, before, after, runs: { dry, applied }, today: TODAY })
    const closed = judgeApproved({ approved, server, seqBefore, exported: exportedRows, after, timeZone: ZONE })
    figures.details.push(...closed.details)
    if (misplaced !== undefined && misplaced.length > 0)
      figures.details.push(`off their rows: ${misplaced.slice(0, 8).join('; ')}${misplaced.length > 8 ? '; …' : ''}`)
    return {
      ...figures,
      writesIntoApproved: closed.writesIntoApproved,
      unmarkedInApproved: closed.unmarkedInApproved,
      misplaced: misplaced?.length,
    }
  } finally {
    await server.close()
    await fake?.close()
    if (!args.keep) await rm(folder, { recursive: true, force: true })
    else process.stdout.write(`(kept ${folder})\n`)
  }
}

function cli(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}
