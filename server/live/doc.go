// Package live runs live sessions: a session open in this process owns
// its writer (session.Writer: the writer lock and the journal), its shell
// and its turns, and tells every open tab what happens through the
// session's event stream.
//
// # The turn engine
//
// A live session is one state machine (state.go). The one turn slot is
// claimed by a submission, a retry or a manual compaction, and freed by
// one release path, which hands it straight to the next queued message.
//
//	state       entered by                                  left by
//	----------  ------------------------------------------  -------------------------------------------
//	idle        open; release with nothing queued            submit, retry → thinking; compact → compacting;
//	                                                         close (idle release, archive, shutdown) → closed
//	thinking    a turn starts; a tool round ends;            the model asks for tools → tool;
//	            a mid-turn compaction ends                   an answer or a failure → release;
//	                                                         a transient failure → retrying; stop → stopping
//	retrying    a transient model failure                    the wait ends → thinking; stop → stopping
//	tool        a tool call runs                             it needs the person → approval; the round ends →
//	                                                         thinking, or compacting at the threshold; stop → stopping
//	approval    a tool call waits for the person             allow → tool; deny → the round goes on (the
//	                                                         denial is the call's outcome); stop → stopping
//	compacting  compact (manual); a settled boundary         done: manual → release, mid-turn → thinking;
//	            over the threshold                           stop → stopping
//	stopping    stop                                         the turn has ended → release
//	closed      close                                        —
//
// Events that keep the state: queue (a message sent while the slot is
// taken waits in the document's queue), archive (the session is marked
// archived at once; its files move when it is next idle, after release),
// and restore of a session whose archive is pending (the mark goes).
//
// release is the only way out of a busy state: it frees the slot, tells
// the tabs how the turn ended, folds the journal into the document in the
// background, and then either starts the next queued message in the same
// slot (nothing can come between), or closes the session when an archive
// waits for it.
package live
