//! Window sums in O(1): a plane's integral images (sums and sums of squares, as f64),
//! from which the matcher reads each window's mean and variance. Nothing else.

/// Window sums over a plane in O(1): sums and sums of squares, as f64.
pub(crate) struct Integral {
    width: usize,
    pub(crate) sum: Vec<f64>,
    pub(crate) sq: Vec<f64>,
}

impl Integral {
    pub(crate) fn new(plane: &[f32], width: usize, height: usize) -> Self {
        let w1 = width + 1;
        let (mut sum, mut sq) = (vec![0f64; w1 * (height + 1)], vec![0f64; w1 * (height + 1)]);
        for y in 0..height {
            let (mut row, mut row_sq) = (0f64, 0f64);
            for x in 0..width {
                let v = f64::from(plane[y * width + x]);
                row += v;
                row_sq += v * v;
                sum[(y + 1) * w1 + x + 1] = sum[y * w1 + x + 1] + row;
                sq[(y + 1) * w1 + x + 1] = sq[y * w1 + x + 1] + row_sq;
            }
        }
        Self { width: w1, sum, sq }
    }

    pub(crate) fn window(&self, table: &[f64], x: usize, y: usize, w: usize, h: usize) -> f64 {
        let at = |x: usize, y: usize| table[y * self.width + x];
        at(x + w, y + h) - at(x, y + h) - at(x + w, y) + at(x, y)
    }
}
