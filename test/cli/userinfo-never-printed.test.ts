/**
 * No URL's user name or password is ever printed, whatever a
 * message or a log field holds (config refuses such URLs; a server may still
 * send one, and a library may quote it).
 */
import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createReporter } from '../../src/cli/reporter.ts'
import { redactUserInfo } from '../../src/errors.ts'

function sink() {
  let text = ''
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString()
      done()
    },
  })
  return { stream, text: () => text }
}

describe('redactUserInfo', () => {
  it.each([
    ['http://user:secret@host/api', 'http://***@host/api'],
    [
      'Request cannot be constructed from a URL that includes credentials: https://u:p@x.test:8443/a?b=c',
      'Request cannot be constructed from a URL that includes credentials: https://***@x.test:8443/a?b=c',
    ],
    ['two: http://a:b@h1/ and ftp://c@h2/x', 'two: http://***@h1/ and ftp://***@h2/x'],
    ['a password with an @: http://u:p@ss@host/', 'a password with an @: http://***@host/'],
  ])('%s', (text, expected) => {
    expect(redactUserInfo(text)).toBe(expected)
  })

  it.each(['http://host/path/@team', 'http://host/?mail=a@b.example', 'mail me at a@b.example', 'http://host:8080/x'])(
    'leaves %s alone',
    (text) => {
      expect(redactUserInfo(text)).toBe(text)
    },
  )
})

describe('the reporter', () => {
  it.each([false, true])('never writes user info, in lines or fields (tty: %s)', (tty) => {
    const out = sink()
    const err = sink()
    const reporter = createReporter({ json: false, verbose: true, stdout: out.stream, stderr: Object.assign(err.stream, { isTTY: tty }) })
    reporter.debug('timeline request', { url: 'http://admin:hunter2@h/api', error: 'GET http://admin:hunter2@h/api failed' })
    reporter.info('Exporting http://admin:hunter2@h/')
    reporter.warn('x', { detail: { nested: 'https://k:hunter2@sheets.test/' } })
    reporter.result('done at http://admin:hunter2@h/', { url: 'http://admin:hunter2@h/' })
    expect(out.text() + err.text()).not.toContain('hunter2')
    expect(err.text()).toContain('http://***@h/api')
  })

  it('--json output too', () => {
    const out = sink()
    const reporter = createReporter({ json: true, verbose: false, stdout: out.stream, stderr: sink().stream })
    reporter.result('', { server: 'http://admin:hunter2@h/' })
    expect(out.text()).not.toContain('hunter2')
  })
})
