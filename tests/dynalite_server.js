// dynalite's cli.js, minus one crash: dynalite throws from a request's 'error' event
// (index.js: `req.on('error', function (err) { throw err })`), so a client killed in the middle
// of a request (kill -9 in tests/test_undo_fuzz.py) takes the whole server down with ECONNRESET.
// DynamoDB drops such a request and serves the next one; so does this server.
process.on('uncaughtException', function (err) {
  if (err && err.code === 'ECONNRESET') return
  console.error(err)
  process.exit(1)
})
require('dynalite/cli.js')
