"""A test server run by asyncio on a thread of its own (127.0.0.1, port 0, TLS when given an SSL context): the fake
upstreams of the LLM proxy tests subclass it and define `_serve(reader, writer)`."""

import asyncio
import threading


class ThreadedAsyncioServer:
    def __init__(self, ssl_context=None):
        self.ssl_context = ssl_context
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(ready,), daemon=True)
        self.thread.start()
        ready.wait(5)

    def _run(self, ready):
        asyncio.set_event_loop(self.loop)
        self.server = self.loop.run_until_complete(
            asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.ssl_context)
        )
        self.port = self.server.sockets[0].getsockname()[1]
        ready.set()
        self.loop.run_forever()

    async def _serve(self, reader, writer):
        raise NotImplementedError

    @property
    def url(self):
        return f"{'https' if self.ssl_context else 'http'}://127.0.0.1:{self.port}"

    def stop(self):
        async def shutdown():
            self.server.close()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(shutdown(), self.loop).result(5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()


def serving(server):
    """For a module fixture: `yield from serving(Server())` yields the started server and stops it afterwards."""
    try:
        yield server
    finally:
        server.stop()
