package producer
import ("testing";"fmt";"path/filepath";"os";"github.com/kseg/kseg/batch";"github.com/kseg/kseg/segment")
func TestFid(t *testing.T){
  root := os.Getenv("FID_DIR"); if root == "" { t.Skip() }
  dirs,_ := filepath.Glob(filepath.Join(root, "*-r*-*"))
  type acc struct{ k, g, u float64; n int }
  m := map[string]*acc{}
  var comp batch.Compressor
  for _, d := range dirs {
    logs,_ := filepath.Glob(filepath.Join(d, "*.log"))
    for _, l := range logs {
      s, err := segment.OpenFile(l, 0, segment.Options{}); if err != nil { continue }
      for s.Next() {
        b := s.Batch(); if b.IsLegacy() || b.Header.Codec() == batch.CodecNone { continue }
        raw, err := b.Decompress(); if err != nil { continue }
        out, _ := comp.Compress(b.Header.Codec(), nil, raw)
        name := filepath.Base(d); name = name[:len(name)-5]
        for len(name) > 0 && name[len(name)-1] != '-' { name = name[:len(name)-1] }
        key := name + b.Header.Codec().String()
        a := m[key]; if a == nil { a = &acc{}; m[key] = a }
        a.k += float64(b.Size - 61); a.g += float64(len(out)); a.u += float64(len(raw)); a.n++
      }
      s.Close()
    }
  }
  for k, a := range m { fmt.Printf("%-30s n=%d java/go=%.3f javaRate=%.3f goRate=%.3f\n", k, a.n, a.k/a.g, a.k/a.u, a.g/a.u) }
}
