/**
 * On-premise sign-in with a Windows account (NTLM). NTLM authenticates the
 * TCP connection, not the request: the three legs (request → Type1 →
 * Type3) must travel on one connection, so every request goes through one
 * dedicated single-connection undici `Client`, one at a time. A server that
 * offers only `Negotiate` gets the same NTLM messages under that scheme, as
 * Windows clients send them when Kerberos is not at hand.
 */
import ntlm from '@ewsjs/ntlm-client'
import { hostname } from 'node:os'
import { Client } from 'undici'
import { TimelineSheetsError } from '../../errors.ts'
import { createTransport, dispatcherOptions, resolveTimeouts, type NetworkSettings } from '../../http/transport.ts'
import type { SignIn } from './sign-in.ts'

export interface NtlmSignInOptions {
  /** Server base URL, e.g. `https://timeline.example.com`; the API entry is `{baseUrl}/api`. */
  baseUrl: string
  /** `alice`, or `EXAMPLE\alice` (the domain then comes from here). */
  username: string
  password: string
  /** NetBIOS domain; overrides the one in `username`. @default the server's, from its challenge */
  domain?: string
  /** Workstation name sent in the handshake. @default the host name, upper-case */
  workstation?: string
  /** Timeouts and the run's deadline for every leg. @default the transport's defaults */
  network?: NetworkSettings
}

/** A Windows `SignIn` holding one connection; `close()` ends it. */
export interface NtlmSignIn extends SignIn {
  readonly mode: 'ntlm'
  close(): Promise<void>
}

/** One challenge of a `WWW-Authenticate` header: a scheme and its token68 or parameters, if any. */
export interface AuthChallenge {
  /** Lower-case scheme, e.g. `ntlm`, `negotiate`, `bearer`. */
  scheme: string
  /** The rest of the challenge (token68 or auth-params), trimmed; empty when bare. */
  value: string
}

/**
 * Splits a `WWW-Authenticate` value into challenges. Several headers arrive
 * joined with ", " (`Negotiate, NTLM`), and parameters contain commas too
 * (`Bearer realm="a", error="b"`), so a comma starts a new challenge only
 * when a bare scheme token follows it.
 */
export function parseAuthenticate(header: string | null | undefined): AuthChallenge[] {
  if (!header) return []
  const parts: string[] = []
  let current = ''
  let quoted = false
  for (let i = 0; i < header.length; i++) {
    const char = header[i]!
    if (char === '"' && header[i - 1] !== '\\') quoted = !quoted
    if (char === ',' && !quoted) {
      parts.push(current)
      current = ''
    } else {
      current += char
    }
  }
  parts.push(current)
  const challenges: AuthChallenge[] = []
  for (const raw of parts.map((part) => part.trim()).filter(Boolean)) {
    // `key=value` continues the previous challenge; a token68 ends in `=` but has no space before it.
    const startsChallenge = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+(\s+|$)/.exec(raw) && !/^[^\s=]+\s*=\s*[^=]/.test(raw)
    if (startsChallenge || challenges.length === 0) {
      const space = raw.search(/\s/)
      challenges.push({
        scheme: (space === -1 ? raw : raw.slice(0, space)).toLowerCase(),
        value: space === -1 ? '' : raw.slice(space).trim(),
      })
    } else {
      const last = challenges[challenges.length - 1]!
      last.value = last.value ? `${last.value}, ${raw}` : raw
    }
  }
  return challenges
}

/** True when a 401's `WWW-Authenticate` offers NTLM (alone or among other schemes). */
export function offersNtlm(header: string | null | undefined): boolean {
  return parseAuthenticate(header).some((challenge) => challenge.scheme === 'ntlm')
}

/**
 * The scheme to carry the NTLM handshake under: `NTLM` when offered,
 * otherwise `Negotiate` (SPNEGO servers take a raw NTLM token and answer with
 * one), otherwise undefined.
 */
export function ntlmCarrier(offered: AuthChallenge[]): 'NTLM' | 'Negotiate' | undefined {
  if (offered.some((challenge) => challenge.scheme === 'ntlm')) return 'NTLM'
  if (offered.some((challenge) => challenge.scheme === 'negotiate')) return 'Negotiate'
  return undefined
}

const NTLM_SIGNATURE = Buffer.from('NTLMSSP\0', 'latin1')

/**
 * Signs in with a Windows account over NTLM (NTLMv2 when the server asks for it).
 *
 * @example
 * const signIn = ntlmSignIn({ baseUrl: 'https://timeline.example.com', username: 'EXAMPLE\\bridge', password })
 */
export function ntlmSignIn(options: NtlmSignInOptions): NtlmSignIn {
  let base: URL
  try {
    base = new URL(options.baseUrl)
  } catch {
    throw new TimelineSheetsError('TS_CONFIG_INVALID', `baseUrl is not a URL: ${JSON.stringify(options.baseUrl)}`)
  }
  const { user, domain } = splitAccount(options.username, options.domain)
  const workstation = options.workstation ?? hostname().split('.')[0]!.toUpperCase()
  const account = domain ? `${domain}\\${user}` : user
  const timeouts = resolveTimeouts(options.network?.timeouts)
  const dispatcher = new Client(base.origin, { pipelining: 1, ...dispatcherOptions(timeouts) })
  // Through the one transport: its limits, and no leg ever follows a redirect to another origin.
  const transport = createTransport({ ...options.network, timeouts, dispatcher })
  // One connection: a request must not cut into another's handshake.
  let queue: Promise<unknown> = Promise.resolve()

  const attempt = (request: Request, body: ArrayBuffer | undefined, authorization?: string): Promise<Response> => {
    const headers = new Headers(request.headers)
    if (authorization) headers.set('authorization', authorization)
    else headers.delete('authorization')
    return transport(new Request(request.url, { method: request.method, headers, body }))
  }

  const handshake = async (request: Request): Promise<Response> => {
    const body = request.body ? await request.arrayBuffer() : undefined
    const first = await attempt(request, body)
    if (first.status !== 401) return first
    const offered = parseAuthenticate(first.headers.get('www-authenticate'))
    await drain(first)
    const carrier = ntlmCarrier(offered)
    if (!carrier) throw notNtlm(base.origin, offered)
    // ntlm-client words its messages as `NTLM <token>`; the token is the same under Negotiate.
    const under = (message: string) => `${carrier} ${message.replace(/^NTLM\s+/i, '')}`

    const negotiate = await attempt(request, body, under(ntlm.createType1Message(workstation, domain)))
    if (negotiate.status !== 401) return negotiate
    const token = parseAuthenticate(negotiate.headers.get('www-authenticate')).find(
      (challenge) => challenge.scheme === carrier.toLowerCase() && challenge.value !== '',
    )?.value
    await drain(negotiate)
    if (carrier === 'Negotiate' && (!token || !Buffer.from(token, 'base64').subarray(0, 8).equals(NTLM_SIGNATURE))) {
      throw new TimelineSheetsError(
        'TS_AUTH_FAILED',
        `${base.origin} offers only Negotiate and did not take NTLM inside it: it asks for Kerberos (Negotiate), which timeline-sheets does not support`,
        { hint: KERBEROS_HINT },
      )
    }
    if (!token) {
      throw new TimelineSheetsError('TS_AUTH_FAILED', `${base.origin} did not answer the NTLM negotiation with a challenge`, {
        hint: 'A proxy between here and the server may be breaking the connection; NTLM needs one persistent connection.',
      })
    }
    let type3: string
    try {
      const type2 = ntlm.decodeType2Message(token)
      type3 = ntlm.createType3Message(type2, user, options.password, workstation, domain)
    } catch (error) {
      throw new TimelineSheetsError('TS_AUTH_FAILED', `${base.origin} sent an NTLM challenge that cannot be read`, { cause: error })
    }
    const final = await attempt(request, body, under(type3))
    if (final.status === 401) {
      await final.body?.cancel()
      throw new TimelineSheetsError('TS_AUTH_FAILED', `Windows sign-in as ${account} at ${base.origin} was refused`, {
        hint: 'Check the user name, the domain and the password of the Windows account.',
      })
    }
    return final
  }

  const send = (request: Request): Promise<Response> => {
    if (new URL(request.url).origin !== base.origin) {
      return Promise.reject(
        new TimelineSheetsError('TS_UNSAFE_TOKEN_LINK', `Refusing to sign in to ${new URL(request.url).origin} with the Windows account`, {
          hint: `Only ${base.origin} receives the credentials. Check baseUrl.`,
        }),
      )
    }
    const run = queue.then(() => handshake(request))
    queue = run.catch(() => undefined)
    return run
  }

  return {
    mode: 'ntlm',
    account: options.username,
    entryUrl: async () => new URL('api', base.href.endsWith('/') ? base.href : `${base.href}/`).href,
    send,
    secrets: () => [options.password],
    close: () => dispatcher.close(),
  }
}

function splitAccount(username: string, domain: string | undefined): { user: string; domain: string | undefined } {
  const slash = username.indexOf('\\')
  if (slash === -1) return { user: username, domain }
  return { user: username.slice(slash + 1), domain: domain ?? username.slice(0, slash) }
}

const KERBEROS_HINT = 'Enable NTLM for the Timeline server in IIS (Windows Authentication providers), or see src/timeline/auth/README.md.'

function notNtlm(origin: string, offered: AuthChallenge[]): TimelineSheetsError {
  const schemes = offered.map((challenge) => challenge.scheme)
  if (schemes.includes('bearer')) {
    return new TimelineSheetsError('TS_AUTH_FAILED', `${origin} does not use Windows accounts: it asks for a Bearer token`, {
      hint: 'Set the sign-in mode to password (server-managed users) in the configuration.',
    })
  }
  return new TimelineSheetsError(
    'TS_AUTH_FAILED',
    `${origin} refused the request without offering NTLM (${schemes.join(', ') || 'no challenge'})`,
  )
}

/**
 * Reads a handshake answer to its end. Cancelling a body that has not fully
 * arrived makes undici close the socket, and NTLM's next leg then arrives on a
 * new connection the server knows nothing about.
 */
async function drain(response: Response): Promise<void> {
  await response.arrayBuffer().catch(() => undefined)
}
