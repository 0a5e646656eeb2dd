/**
 * The system's refusals to read or write the tool's own
 * files become errors that name the file, the permission and the fix, with
 * exit 2 when the setup must change and exit 1 when running again will do.
 * ENOTDIR is produced for real (a path through a file works even as root);
 * the other codes are the errors Node raises, built by hand.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { toCliFailure } from '../../src/cli/errors.ts'
import { fileAccessError, FileAccessError } from '../../src/state/file-access.ts'
import { openJournal, unfinishedJournals } from '../../src/state/journal.ts'
import { acquireLock } from '../../src/state/lock.ts'
import { emptyState, loadState, saveState, stateLocation } from '../../src/state/target-state.ts'
import { writeTokenFile } from '../../src/state/cloud-token-file.ts'

/** A state folder below a regular file: every write under it fails with ENOTDIR. */
async function blockedFolder(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ts-issue-8-files-'))
  await writeFile(path.join(dir, 'a-file'), 'x')
  return path.join(dir, 'a-file', 'state')
}

function errno(code: string, file: string, syscall = 'open'): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: refused, ${syscall} '${file}'`), { code, path: file, syscall, errno: -1 })
}

async function refusal(promise: Promise<unknown>): Promise<FileAccessError> {
  const error = await promise.catch((e: unknown) => e)
  expect(error).toBeInstanceOf(FileAccessError)
  return error as FileAccessError
}

describe("each of the tool's files is named when the system refuses it", () => {
  it('the lock file', async () => {
    const error = await refusal(acquireLock(path.join(await blockedFolder(), 'team', 'lock'), { command: 'export' }))
    expect(error.message).toMatch(
      /^Cannot write the lock file .*\/a-file\/state\/team\/lock: a part of the path .* is a file, not a folder \(ENOTDIR\)$/,
    )
    expect(error.hint).toContain('"stateDir"')
    expect(toCliFailure(error).exitCode).toBe(2)
  })

  it('the state file, read and written', async () => {
    const location = stateLocation(await blockedFolder(), 'team')
    expect((await refusal(loadState(location, 'team'))).message).toMatch(/^Cannot read the state file .*state\.json: .*ENOTDIR/)
    expect((await refusal(saveState(location, emptyState('team')))).message).toMatch(
      /^Cannot write the state file .*state\.json: .*ENOTDIR/,
    )
  })

  it('the journal, and a journal folder that cannot be listed (it would hide an interrupted run)', async () => {
    const folder = path.join(await blockedFolder(), 'team', 'journal')
    expect((await refusal(openJournal(folder, 'run-1', 'import'))).message).toMatch(/^Cannot write the journal .*run-1\.jsonl: .*ENOTDIR/)
    expect((await refusal(unfinishedJournals(folder))).message).toMatch(/^Cannot read the journal folder .*journal: .*ENOTDIR/)
  })

  it('the cloud token file', async () => {
    const file = path.join(await blockedFolder(), 'cloud-token.json')
    const token = { version: 1 as const, issuer: 'https://login.example.com', clientId: 'c', refreshToken: 'r', updatedAt: 'now' }
    const error = await refusal(writeTokenFile(file, token))
    expect(error.message).toMatch(/^Cannot write the token file .*cloud-token\.json: .*ENOTDIR/)
    expect(error.hint).toContain('"timeline.auth.tokenFile"')
  })
})

describe('which refusal, which exit code', () => {
  const context = { what: 'the state file', file: '/srv/ts/state/team/state.json', action: 'write' as const, setting: 'stateDir' }

  it.each(['EACCES', 'EPERM'])('%s: permission denied, the user, the fix; exit 2 (running again changes nothing)', (code) => {
    const error = fileAccessError(errno(code, '/srv/ts/state/team/state.json.new'), context)!
    expect(error.code).toBe('TS_FILE_ACCESS')
    expect(error.message).toMatch(
      new RegExp(
        `^Cannot write the state file /srv/ts/state/team/state\\.json: permission denied \\(${code}\\); the user running timeline-sheets \\(.+\\) may not`,
      ),
    )
    expect(error.hint).toMatch(/^Give \S+ write permission on .*, or set "stateDir" in the config to a place it may write\.$/)
    expect(toCliFailure(error).exitCode).toBe(2)
  })

  it('EROFS: a read-only disk; exit 2', () => {
    const error = fileAccessError(errno('EROFS', context.file), context)!
    expect(error.message).toBe('Cannot write the state file /srv/ts/state/team/state.json: the file system is read-only (EROFS)')
    expect(toCliFailure(error).exitCode).toBe(2)
  })

  it.each(['ENOSPC', 'EDQUOT'])('%s: a full disk; exit 1 (free space and run again, nothing was lost)', (code) => {
    const error = fileAccessError(errno(code, context.file, 'write'), context)!
    expect(error.code).toBe('TS_DISK_FULL')
    expect(error.message).toMatch(/the disk is full/)
    expect(error.hint).toMatch(/run again; nothing was lost/)
    expect(toCliFailure(error).exitCode).toBe(1)
  })

  it('a refusal nobody named on the way (the workbook, a key file) is still explained at the top, not called a bug', () => {
    const failure = toCliFailure(errno('EACCES', '/srv/ts/team.xlsx'))
    expect(failure.exitCode).toBe(2)
    expect(failure.message).toMatch(/^Cannot use the file \/srv\/ts\/team\.xlsx: permission denied \(EACCES\)/)
    expect(failure.hint).not.toMatch(/bug/)
  })

  it('other errors are not taken for refusals', () => {
    expect(fileAccessError(errno('ENOENT', context.file), context)).toBeUndefined()
    expect(fileAccessError(new Error('boom'), context)).toBeUndefined()
  })
})
