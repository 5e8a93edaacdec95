// The name of every event on a session's stream, in one place. It lists
// exactly the Go types of server/event (a Go test checks): use these,
// never a name written out by hand.
export const EV = Object.freeze({
  snapshot: 'snapshot',
  status: 'status',
  title: 'title',
  queued: 'queued',
  context: 'context',
  turnStart: 'turn.start',
  turnEnd: 'turn.end',
  turnError: 'turn.error',
  messageStart: 'message.start',
  textDelta: 'text.delta',
  messageEnd: 'message.end',
  messageDiscard: 'message.discard',
  toolStart: 'tool.start',
  toolApproval: 'tool.approval',
  toolEnd: 'tool.end',
  compactionStart: 'compaction.start',
  compactionEnd: 'compaction.end',
  threadNew: 'thread.new',
  panel: 'panel',
});
