package report

import "errors"

var errIndexPending = errors.New("index dumping is not available yet")

func (d *Dumper) dumpIndex(name string) error     { return errIndexPending }
func (d *Dumper) dumpTimeIndex(name string) error { return errIndexPending }
func (d *Dumper) dumpSnapshot(name string) error  { return errIndexPending }
func (d *Dumper) dumpTxnIndex(name string) error  { return errIndexPending }
