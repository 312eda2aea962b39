"""Sessions kept on disk: each session's transcript saved as its turns go, and loaded again by id after a restart."""

from __future__ import annotations

import asyncio
from typing import Any

from handrail.server.session import Session
from handrail.server.storage import session_storage
from handrail.server.transcript import TRANSCRIPT_NAME, Transcript, load_transcript


class SessionArchive:
    """The transcripts of the server's sessions."""

    def __init__(self) -> None:
        self._transcripts: dict[str, Transcript] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._resumed: set[str] = set()

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

    async def save(self, session: Session) -> None:
        """Bring the session's transcript up to its history (appending; rewriting after compaction)."""
        lock = self._locks.setdefault(session.id, asyncio.Lock())
        async with lock:  # writes of one session stay in order
            transcript = self._transcript(session.id)
            rewrite, lines = transcript.pending(session.messages)  # computed on the loop: the history may change
            await asyncio.to_thread(transcript.write, rewrite, lines)
