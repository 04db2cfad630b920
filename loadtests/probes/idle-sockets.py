"""Opens N WebSockets to a lab server on loopback and holds them idle, each pinging every PING s
(staggered over the interval, as bench.js's sockets are), for HOLD s; then closes them and exits.

Usage: idle-sockets.py N PORT HOLD_S PING_S. Prints one line once every socket is open."""

import asyncio
import base64
import os
import sys
import time

N, PORT, HOLD_S, PING_S = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
OPENING_AT_ONCE = 200
# A ping from a client: FIN and opcode 9, then the mask bit with an empty payload, then its 4-byte mask (RFC 6455, 5.2).
PING_FRAME_HEAD = b"\x89\x80"


async def open_socket(index, held):
    reader, writer = await asyncio.open_connection("127.0.0.1", PORT)
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write(
        (
            "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    await writer.drain()
    status = await reader.readline()
    if b" 101 " not in status:
        raise SystemExit(f"socket {index}: the server answered {status!r}, not 101")
    while (await reader.readline()) not in (b"\r\n", b""):
        pass
    held.append(writer)
    asyncio.get_running_loop().create_task(ping(index, reader, writer))


async def ping(index, reader, writer):
    await asyncio.sleep(PING_S * index / N)
    while True:
        writer.write(PING_FRAME_HEAD + os.urandom(4))
        await asyncio.sleep(PING_S)


async def main():
    held = []
    opening = asyncio.Semaphore(OPENING_AT_ONCE)

    async def bounded(index):
        async with opening:
            await open_socket(index, held)

    started = time.monotonic()
    await asyncio.gather(*(bounded(i) for i in range(N)))
    print(f"opened {len(held)} sockets in {time.monotonic() - started:.1f} s", flush=True)
    await asyncio.sleep(HOLD_S)
    for writer in held:
        writer.close()


asyncio.run(main())
