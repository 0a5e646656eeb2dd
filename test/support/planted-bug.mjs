// Preloaded into a CLI process (`NODE_OPTIONS=--import …`) by tests of how an unexpected error is reported: a plain
// TypeError thrown from deep inside a run, the kind no adapter turns into a typed error. Every run formats a time
// early (the reporter's timestamps, the run id), so any command meets it.
Date.prototype.toISOString = function plantedBug() {
  throw new TypeError('planted bug')
}
