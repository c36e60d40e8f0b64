package rawjson

// Elements calls fn with every item of the array arr, in order. fn returns
// false to stop. Elements returns false when arr is not an array or ends
// early.
func Elements(arr []byte, fn func(item []byte) bool) bool {
	i := space(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return false
	}
	i = space(arr, i+1)
	if i < len(arr) && arr[i] == ']' {
		return space(arr, i+1) == len(arr)
	}
	for i < len(arr) {
		end, ok := skipValue(arr, i)
		if !ok {
			return false
		}
		if !fn(arr[i:end]) {
			return true
		}
		i = space(arr, end)
		if i >= len(arr) {
			return false
		}
		switch arr[i] {
		case ',':
			i = space(arr, i+1)
		case ']':
			return space(arr, i+1) == len(arr)
		default:
			return false
		}
	}
	return false
}
