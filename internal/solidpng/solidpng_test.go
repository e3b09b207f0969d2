package solidpng

import (
	"bytes"
	"image/color"
	"image/png"
	"testing"
)

func TestOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		w, h int
		c    color.RGBA
	}{
		{"square", 24, 24, color.RGBA{90, 120, 200, 255}},
		{"wide", 120, 60, color.RGBA{40, 160, 90, 255}},
		{"one pixel", 1, 1, color.RGBA{0, 0, 0, 255}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := Of(tc.w, tc.h, tc.c)
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if r := img.Bounds(); r.Dx() != tc.w || r.Dy() != tc.h {
				t.Fatalf("size %v, want %dx%d", r, tc.w, tc.h)
			}
			if got := color.RGBAModel.Convert(img.At(tc.w-1, tc.h-1)); got != tc.c {
				t.Fatalf("colour %v, want %v", got, tc.c)
			}
			if !bytes.Equal(b, Of(tc.w, tc.h, tc.c)) {
				t.Fatal("two calls gave different bytes")
			}
		})
	}
}
