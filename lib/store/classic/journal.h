/*
 * journal.h -- the rollback journal that makes a classic file's
 * redefinition (ncs_enddef after ncs_redef) atomic.
 *
 * Before such an enddef overwrites anything in the file, the old bytes of
 * every range it will overwrite go to a journal file next to it,
 * "<path>-ncsjournal", which is synced (with its directory) before the
 * first write to the data file.  Deleting the journal (and syncing the
 * directory), after the data file is complete and synced, commits the
 * redefinition.  A journal still there
 * when the file is opened again is rolled back (the old bytes put back, the
 * file cut to its old size) before the header is read.  The format, the
 * locking protocol and what is journaled are in journal.c and
 * doc/reliability.md.
 *
 * Used by the classic back end only (classic.c, classic_redef.c).
 */
#ifndef NCS_JOURNAL_H
#define NCS_JOURNAL_H

#include "io.h"

/* What the journal's name adds to the data file's path. */
#define NCSI_JOURNAL_SUFFIX "-ncsjournal"

/* A byte range [off, off + len) of the data file. */
typedef struct ncs_range {
    uint64_t off, len;
} ncs_range;

typedef struct ncs_journal ncs_journal;

/* Locks data (the file at path, old_size bytes long, its cached writes
 * already flushed) and writes the journal of n ranges: sorted, disjoint,
 * inside [0, old_size).  On return with NCS_NOERR the journal and its
 * directory entry are on stable storage and data may be written; *jp must
 * then end in ncsi_journal_commit or ncsi_journal_rollback.  On failure
 * nothing of data was written, no journal is left and the lock is
 * released; *jp is NULL.
 * Errors: EBUSY (another handle or process holds the lock: a redefinition
 * or a recovery under way), ENAMETOOLONG (path leaves no room for the
 * suffix), NCS_ENOMEM, I/O errors. */
int ncsi_journal_begin(const char *path, ncs_io *data, uint64_t old_size,
                       const ncs_range *ranges, size_t n, ncs_journal **jp);

/* Commits: data (already complete and synced) keeps its new content.
 * Deletes the journal and syncs its directory, then unlocks data and frees
 * the journal (*jp = NULL).  When the deletion fails, *jp is untouched,
 * still to be rolled back.  When the directory sync fails, the change is
 * committed but a power loss could still undo it: *jp is NULL, data stays
 * locked, and the caller must not write data again (at the next open it
 * holds either layout, whole).
 * Errors: errno values of unlink, I/O errors of the directory sync. */
int ncsi_journal_commit(ncs_journal **jp, ncs_io *data);

/* Rolls data back: the journaled bytes back in place, the file cut to its
 * old size and synced, then the journal deleted and data unlocked.  Frees
 * j.  When this fails the journal stays (the next open rolls it back) and
 * data stays locked until it is closed; data must not be written again.
 * Errors: NCS_ENOTNC (the journal no longer reads back intact), I/O
 * errors. */
int ncsi_journal_rollback(ncs_journal *j, ncs_io *data);

/* At open, before the header of path is read: rolls back a hot journal
 * (complete and intact: the writer died, or failed to roll back, during a
 * redefinition) and deletes one that is not (it died while writing the
 * journal, before the data file was touched).  A rollback needs write
 * access to path, whatever mode the caller opens it in.
 * Errors: EBUSY (a live writer holds the lock: its redefinition is under
 * way), NCS_EPERM (a hot journal, but path cannot be opened for writing),
 * NCS_ENOMEM, I/O errors. */
int ncsi_journal_recover(const char *path);

/* A new file at path (ncs_create): any journal of a file that had that
 * name is meaningless now and is deleted.  Errors: errno values of unlink
 * other than ENOENT, NCS_ENOMEM. */
int ncsi_journal_remove_stale(const char *path);

#endif /* NCS_JOURNAL_H */
