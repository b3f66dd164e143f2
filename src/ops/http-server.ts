import { createServer, type Server } from 'node:http'
import type { Registry } from 'prom-client'

/** Serves `/metrics` (Prometheus), `/healthz` (process alive) and `/readyz` (consuming). */
export async function startOpsServer(options: {
  host: string
  port: number
  registry: Registry
  /** Brings values read from elsewhere (the source's counters, the lag) up to date before a scrape. */
  beforeScrape?: () => Promise<void>
  ready: () => boolean
}): Promise<{ server: Server; url: string; close: () => Promise<void> }> {
  const server = createServer(async (req, res) => {
    if (req.url === '/metrics') {
      try {
        await options.beforeScrape?.()
        const body = await options.registry.metrics()
        res.writeHead(200, { 'content-type': options.registry.contentType }).end(body)
      } catch (error) {
        res
          .writeHead(500, { 'content-type': 'text/plain' })
          .end(`metrics unavailable: ${(error as Error).message}\n`)
      }
    } else if (req.url === '/healthz') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok\n')
    } else if (req.url === '/readyz') {
      const ready = options.ready()
      res
        .writeHead(ready ? 200 : 503, { 'content-type': 'text/plain' })
        .end(ready ? 'ready\n' : 'not ready\n')
    } else {
      res.writeHead(404).end()
    }
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => resolve())
  })
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : options.port
  return {
    server,
    url: `http://${options.host}:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
