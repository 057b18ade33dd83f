package toolfixture

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"math"
)

// pngBytes is a 32×32 PNG: a blue square on orange.
func pngBytes() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 32, 32))
	for y := range 32 {
		for x := range 32 {
			c := color.RGBA{R: 240, G: 140, B: 20, A: 255}
			if x >= 8 && x < 24 && y >= 8 && y < 24 {
				c = color.RGBA{R: 20, G: 80, B: 220, A: 255}
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	png.Encode(&b, img) // writing to a buffer does not fail
	return b.Bytes()
}

func pngBase64() string { return base64.StdEncoding.EncodeToString(pngBytes()) }

// wavBytes is a quarter second of a 440 Hz tone, 8 kHz 16-bit mono PCM.
func wavBytes() []byte {
	const rate, samples = 8000, 2000
	var b bytes.Buffer
	w := func(v any) { binary.Write(&b, binary.LittleEndian, v) } // writes to a buffer do not fail
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
		w(int16(8000 * math.Sin(2*math.Pi*440*float64(i)/rate)))
	}
	return b.Bytes()
}
