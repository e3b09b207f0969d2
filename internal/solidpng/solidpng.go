// Package solidpng makes the one-colour PNG pictures the module's local
// sites serve (the sim's generated picture, the test site's avatars and
// chart): the same bytes for the same size and colour.
package solidpng

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
)

// Of returns a w×h PNG of the colour c.
func Of(w, h int, c color.Color) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	_ = png.Encode(&b, img) // writing to a bytes.Buffer does not fail
	return b.Bytes()
}
