package bodybuffer

import (
	"fmt"
	"os"
)

// spool moves a body that outgrew memBytes to a new temporary file in
// b.dir and writes the bytes buffered so far to it. The file is unlinked
// at once, so it vanishes with the descriptor even if the process dies;
// where unlinking an open file fails (Windows) its name is kept and it is
// removed on release.
func (b *Buffer) spool(u *upload, head []byte) error {
	f, err := os.CreateTemp(b.dir, "bodybuffer-*")
	if err != nil {
		return spoolErr(err)
	}
	u.file = f
	if err := os.Remove(f.Name()); err != nil {
		u.name = f.Name()
	}
	if _, err := f.Write(head); err != nil {
		return spoolErr(err)
	}
	return nil
}

func spoolErr(err error) error { return fmt.Errorf("%w: %w", ErrSpool, err) }
