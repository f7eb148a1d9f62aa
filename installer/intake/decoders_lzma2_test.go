package intake

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/ulikunitz/xz/lzma"
)

// rawLZMA2 compresses data as a raw LZMA2 stream (a 7z coder's packed
// stream) with a 1 MiB dictionary.
func rawLZMA2(t *testing.T, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := lzma.Writer2Config{DictCap: 1 << 20}.NewWriter2(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// lzma2Prop1MiB is the 7z property byte of a 1 MiB LZMA2 dictionary.
const lzma2Prop1MiB = 16

func decodeLZMA2(packed []byte, size uint64) ([]byte, error) {
	rc, err := newLZMA2Reader([]byte{lzma2Prop1MiB}, size, []io.ReadCloser{io.NopCloser(bytes.NewReader(packed))})
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return io.ReadAll(rc)
}

func TestLZMA2Coder(t *testing.T) {
	// Text that compresses and random-looking bytes that LZMA2 stores,
	// so both chunk kinds are decoded; sizes that leave every padding.
	var data []byte
	for i := 0; len(data) < 3<<20; i++ {
		data = append(data, []byte(strings.Repeat("lift door panel ", i%7+1))...)
		data = append(data, byte(i*2654435761>>13), byte(i*40503>>7), byte(i))
	}
	for _, n := range []int{0, 1, 2, 3, 5, 1 << 16, len(data)} {
		packed := rawLZMA2(t, data[:n])
		got, err := decodeLZMA2(packed, uint64(n))
		if err != nil {
			t.Fatalf("%d bytes: %v", n, err)
		}
		if !bytes.Equal(got, data[:n]) {
			t.Fatalf("%d bytes: decoded %d bytes that differ from the input", n, len(got))
		}
	}
	packed := rawLZMA2(t, data)
	// A folder that declares another size than the stream holds, and a
	// stream cut short, are errors, never a short or long file.
	for name, c := range map[string]struct {
		packed []byte
		size   uint64
	}{
		"size declared larger":  {packed, uint64(len(data)) + 1},
		"size declared smaller": {packed, uint64(len(data)) - 1},
		"stream cut":            {packed[:len(packed)/2], uint64(len(data))},
		"end marker missing":    {packed[:len(packed)-1], uint64(len(data))},
	} {
		if got, err := decodeLZMA2(c.packed, c.size); err == nil {
			t.Errorf("%s: decoded %d bytes with no error", name, len(got))
		}
	}
}

func TestLZMA2DictionaryRule(t *testing.T) {
	// Property 40 is a 4 GiB dictionary, 34 is 384 MiB, 29 is 96 MiB...
	for _, prop := range []byte{40, 34, 29} {
		_, err := newLZMA2Reader([]byte{prop}, 1, []io.ReadCloser{io.NopCloser(bytes.NewReader(nil))})
		ce, ok := err.(*coderError)
		if !ok || ce.rule != RuleDecoderMemory {
			t.Errorf("property %d: got %v, want the %s rule", prop, err, RuleDecoderMemory)
		}
	}
	// ... and 28 is 64 MiB, the most a pack may ask for.
	if _, err := newLZMA2Reader([]byte{28}, 0, []io.ReadCloser{io.NopCloser(bytes.NewReader([]byte{0}))}); err != nil {
		t.Errorf("property 28 (64 MiB): %v", err)
	}
}
