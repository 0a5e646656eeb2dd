/**
 * Sends a notice to the config's `notify.webhook` (the URL from the environment variable it names), bounded: the
 * POST has `timeoutMs` for everything, connection and answer included, and whatever happens (a hung or refusing
 * receiver, no network) is said as a warning and never thrown, so a notice can neither hold a run past that nor
 * change its exit code. The URL is a credential (Slack's and Teams' carry their key in the path): messages name
 * its host only.
 */
import { noticeBody, type Notice } from '../core/notice.ts'
import { RequestTimeoutError } from '../errors.ts'
import { createTransport, type Transport } from '../http/transport.ts'
import type { NotifyConfig } from '../config/schema.ts'
import type { Reporter } from './reporter.ts'

export type SendNotice = (notice: Notice) => Promise<'sent' | 'failed'>

export interface WebhookOptions {
  webhook: NotifyConfig['webhook']
  env: NodeJS.ProcessEnv
  reporter: Reporter
  /** Injected in tests. @default the tool's transport */
  transport?: Transport
}

export function webhookSender(options: WebhookOptions): SendNotice {
  const { webhook, reporter } = options
  const url = options.env[webhook.urlEnv]
  const ms = webhook.timeoutMs
  const transport =
    options.transport ?? createTransport({ timeouts: { connectMs: ms, firstByteMs: ms, idleBodyMs: ms, totalMs: ms }, maxRedirects: 0 })
  return async (notice) => {
    if (!url) {
      reporter.warn(
        `No failure notice sent for ${notice.target}: the environment variable ${webhook.urlEnv} (notify.webhook.urlEnv) is not set.`,
      )
      return 'failed'
    }
    const host = hostOf(url)
    let timer: NodeJS.Timeout | undefined
    const abort = new AbortController()
    // The transport's limits end the request; this ends the wait even if something below them does not.
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => (abort.abort(), resolve('late')), ms + 250)
      timer.unref()
    })
    const post = (async () => {
      const response = await transport(
        new Request(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(noticeBody(notice)),
          signal: abort.signal,
        }),
      )
      await response.body?.cancel().catch(() => undefined)
      return response.status
    })()
    let why: string
    try {
      const status = await Promise.race([post, late])
      if (status === 'late') why = `no answer within ${ms} ms`
      else if (status < 200 || status >= 300) why = `it answered ${status}`
      else {
        reporter.info(
          `Told the webhook (${host}) that ${notice.target} ${notice.event === 'failed' ? `failed (${notice.code})` : 'recovered'}.`,
        )
        return 'sent'
      }
    } catch (error) {
      // Never the error's own message: it may quote the URL, key and all.
      why = whyNot(error, ms)
    } finally {
      clearTimeout(timer)
    }
    post.catch(() => undefined)
    reporter.warn(
      `Could not tell the webhook (${host}) that ${notice.target} ${notice.event === 'failed' ? 'failed' : 'recovered'}: ${why}. The run goes on; the notice is tried again after the next run.`,
    )
    return 'failed'
  }
}

function whyNot(error: unknown, ms: number): string {
  if (error instanceof RequestTimeoutError) return `no answer within ${ms} ms`
  const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code
  return typeof code === 'string' ? `the request failed (${code})` : 'the request failed'
}

function hostOf(url: string): string {
  try {
    return new URL(url).host
  } catch {
    return 'an address that is not a URL'
  }
}
