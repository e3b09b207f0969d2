package sim

import (
	"bytes"
	"encoding/binary"
	"math"
)

// WAV returns a playable mono 16-bit PCM WAV of the given length in
// milliseconds (a tone). Chromium plays it in a <video> element, which is
// all the sim's "video" needs: a source that becomes ready to play.
func WAV(ms int) []byte {
	const rate = 8000
	samples := rate * ms / 1000
	var b bytes.Buffer
	w := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	w(uint32(36 + samples*2))
	b.WriteString("WAVEfmt ")
	w(uint32(16))
	w(uint16(1)) // PCM
	w(uint16(1)) // mono
	w(uint32(rate))
	w(uint32(rate * 2))
	w(uint16(2))
	w(uint16(16))
	b.WriteString("data")
	w(uint32(samples * 2))
	for i := range samples {
		w(int16(3000 * math.Sin(2*math.Pi*440*float64(i)/rate)))
	}
	return b.Bytes()
}
