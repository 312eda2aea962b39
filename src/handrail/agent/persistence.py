"""Sessions kept on disk: each session's transcript saved as its turns go, and loaded again by id after a restart."""

from __future__ import annotations

import asyncio
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from handrail.agent.session import Session
from handrail.agent.storage import session_storage
from handrail.agent.transcript import TRANSCRIPT_NAME, Transcript, load_transcript


class SessionArchive:
    """The transcripts of the server's sessions.

    Writes go to one background thread, in the order they were asked for, so the agent loop
    hands its new messages over without waiting on the disk (a wait cost about 0.2 ms per
    model round trip); `save` waits until everything asked so far is written.
    """

    def __init__(self) -> None:
        self._transcripts: dict[str, Transcript] = {}
        self._resumed: set[str] = set()
        # one worker: writes of a session stay in order, and a non-daemon thread finishes them at exit
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="handrail-transcript")

    def _transcript(self, session_id: str) -> Transcript:
        if session_id not in self._transcripts:
            self._transcripts[session_id] = Transcript(session_storage(session_id) / TRANSCRIPT_NAME)
        return self._transcripts[session_id]

    async def resume(self, session: Session) -> None:
        """Give a session the history stored for its id, the first time it is asked for (if it has none yet)."""
        if session.id in self._resumed:
            return
        self._resumed.add(session.id)
        if not session.messages:
            session.messages[:0] = await self.load(session.id)

    async def load(self, session_id: str) -> list[dict[str, Any]]:
        """The stored history of a session this server does not hold (empty if none), every tool_use answered."""
        transcript = self._transcript(session_id)
        messages = await asyncio.to_thread(load_transcript, transcript.path)
        # written back whole at the next save: the repair may have added answers the file lacks
        transcript.rewrite_at_next_save()
        return messages

    def save_soon(self, session: Session) -> Future[None]:
        """Start bringing the session's transcript up to its history (appending; rewriting after compaction).

        The lines are worked out now, on the loop, as the history may change; the returned future is done
        once they, and every write asked for before, are on disk.
        """
        transcript = self._transcript(session.id)
        rewrite, lines = transcript.pending(session.messages)
        return self._writer.submit(transcript.write, rewrite, lines)

    async def save(self, session: Session) -> None:
        """Bring the session's transcript up to its history and wait until it is written."""
        await asyncio.wrap_future(self.save_soon(session))
