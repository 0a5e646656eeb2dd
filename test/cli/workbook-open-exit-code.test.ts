/**
 * A workbook someone has open ends the run with its own exit code, 8: not 1, which a scheduler repeats at once
 * into the same refusal, and not 5, which is another run of the tool. --help and the README list every exit code.
 */
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { toCliFailure } from '../../src/cli/errors.ts'
import { EXIT } from '../../src/cli/exit-codes.ts'
import { buildProgram } from '../../src/cli/main.ts'
import { WorkbookOpenError } from '../../src/sheets/workbook/open-by.ts'

const root = path.resolve(import.meta.dirname, '../..')

describe('a workbook open in another program', () => {
  const error = new WorkbookOpenError({
    file: '/srv/share/team.xlsx',
    holders: [{ program: 'Excel', user: 'Ann Example', lockFile: '/srv/share/~$team.xlsx' }],
    errno: 'EBUSY',
    attempts: 4,
    waitedMs: 7000,
    cause: new Error('EBUSY'),
  })

  it('exits 8 with the message that names who has it open and the hint that says how to go on', () => {
    expect(EXIT.workbookOpen).toBe(8)
    expect(toCliFailure(error)).toEqual({
      exitCode: 8,
      code: 'TS_WORKBOOK_OPEN',
      message: expect.stringContaining('Ann Example (Excel) has it open') as unknown,
      hint: 'Ask Ann Example to close /srv/share/team.xlsx in Excel (or close it yourself), then run again.',
    })
  })

  it('is listed in --help', () => {
    let help = ''
    const program = buildProgram().configureOutput({ writeOut: (text) => (help += text) })
    program.outputHelp()
    expect(help).toMatch(/\n {2}8 {2}the workbook is open in Excel or LibreOffice/)
  })
})

describe('the exit codes in the README', () => {
  it('lists every exit code the tool ends with, once', async () => {
    const readme = await readFile(path.join(root, 'README.md'), 'utf8')
    const table = readme.slice(readme.indexOf('### Exit codes'), readme.indexOf('Output:', readme.indexOf('### Exit codes')))
    const listed = [...table.matchAll(/^\| (\d+) +\|/gm)].map((match) => Number(match[1]))
    expect(listed).toEqual(Object.values(EXIT).sort((a, b) => a - b))
  })
})
