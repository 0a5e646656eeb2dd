/** The row bases of a state whose base file a run left unread (`loadState`'s `deferBases`). */
import { bugError } from '../errors.ts'

/**
 * `state.base` while its file is left unread (`deferBases`). Every use throws: a run that needs bases must
 * load them first. A save leaves the file as it is (it was not changed), which needs no use of the map.
 */
export class UnreadBases extends Map<string, string> {
  readonly #file: string
  constructor(file: string) {
    super()
    this.#file = file
  }
  #refuse(): never {
    throw bugError(`The row bases in ${this.#file} were not read: this run must call loadBases() before it uses them.`)
  }
  override get size(): number {
    return this.#refuse()
  }
  override get(): string | undefined {
    return this.#refuse()
  }
  override has(): boolean {
    return this.#refuse()
  }
  override set(): this {
    return this.#refuse()
  }
  override delete(): boolean {
    return this.#refuse()
  }
  override clear(): void {
    this.#refuse()
  }
  override forEach(): void {
    this.#refuse()
  }
  override keys(): MapIterator<string> {
    return this.#refuse()
  }
  override values(): MapIterator<string> {
    return this.#refuse()
  }
  override entries(): MapIterator<[string, string]> {
    return this.#refuse()
  }
  override [Symbol.iterator](): MapIterator<[string, string]> {
    return this.#refuse()
  }
}
